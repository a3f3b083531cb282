import { InvalidArgumentError, type LifecycleEvent } from '@echo/protocol/queue';

/** What a job may report as progress: text, a number, or a JSON object or array. */
export type Progress = string | number | Readonly<Record<string, unknown>> | readonly unknown[];

/** True for text a number prints as (`"42"`, `"-0.5"`): untagged, it reads back as that number. */
function numeric(text: string): boolean {
  return text !== '' && String(Number(text)) === text;
}

/**
 * The wire form of a progress value. Every event field is a string (bus.md §1.1), and the spec's
 * event for `updateProgress(id, 50)` is exactly `{"progress":"50"}`, so a number travels untagged;
 * text that would read as a number is tagged `string`, an object or array travels as JSON tagged `json`.
 * @throws InvalidArgumentError for a number that is not finite, or an object JSON cannot encode.
 */
export function encodeProgress(progress: Progress): { progress: string; kind?: 'string' | 'json' } {
  if (typeof progress === 'string') return numeric(progress) ? { progress, kind: 'string' } : { progress };
  if (typeof progress === 'number') {
    if (!Number.isFinite(progress)) throw new InvalidArgumentError('progress', 'must be a finite number');
    return { progress: String(progress) };
  }
  try {
    return { progress: JSON.stringify(progress), kind: 'json' };
  } catch {
    throw new InvalidArgumentError('progress', 'must be encodable as JSON');
  }
}

/**
 * The value a `progress` event carries, with the type it was reported with: a number comes back a
 * number, an object an object, text text. Untagged text that a number prints as reads as that
 * number, which is also how another implementation's numeric progress arrives. `undefined` for any
 * other event.
 */
export function progressValue(event: LifecycleEvent): Progress | undefined {
  if (event.event !== 'progress') return undefined;
  const text = event.fields.progress;
  if (text === undefined) return undefined;
  const kind = event.fields.progress_type;
  if (kind === 'string') return text;
  if (kind === 'json') {
    try {
      return JSON.parse(text) as Progress;
    } catch {
      return text;
    }
  }
  return numeric(text) ? Number(text) : text;
}
