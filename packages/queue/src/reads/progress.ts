import { InvalidArgumentError, type LifecycleEvent } from '@echo/protocol';

/** What a job may report as progress: text, a number, or a JSON object or array. */
export type Progress = string | number | Readonly<Record<string, unknown>> | readonly unknown[];

/**
 * The wire form of a progress value: every event field is a string (bus.md §1.1), so a number or
 * an object travels as text with a `kind` that says how to read it back.
 * @throws InvalidArgumentError for a number that is not finite, or an object JSON cannot encode.
 */
export function encodeProgress(progress: Progress): { progress: string; kind?: 'number' | 'json' } {
  if (typeof progress === 'string') return { progress };
  if (typeof progress === 'number') {
    if (!Number.isFinite(progress)) throw new InvalidArgumentError('progress', 'must be a finite number');
    return { progress: String(progress), kind: 'number' };
  }
  try {
    return { progress: JSON.stringify(progress), kind: 'json' };
  } catch {
    throw new InvalidArgumentError('progress', 'must be encodable as JSON');
  }
}

/**
 * The value a `progress` event carries, with the type it was reported with: a number comes back a
 * number, an object an object, text text. `undefined` for any other event.
 */
export function progressValue(event: LifecycleEvent): Progress | undefined {
  if (event.event !== 'progress') return undefined;
  const text = event.fields.progress;
  if (text === undefined) return undefined;
  const kind = event.fields.progress_type;
  if (kind === 'number') return Number(text);
  if (kind === 'json') {
    try {
      return JSON.parse(text) as Progress;
    } catch {
      return text;
    }
  }
  return text;
}
