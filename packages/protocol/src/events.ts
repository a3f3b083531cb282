import { assertBrandedId } from './ids/guards.js';

/**
 * The lifecycle event names of queue.md §12, plus `removed` [TS] (a job deleted by `remove`);
 * anything else off the wire reads as `unknown`.
 */
export const EVENT_NAMES = ['progress', 'completed', 'failed', 'delayed', 'stalled', 'scheduled', 'removed'] as const;

/** One lifecycle event name. */
export type EventName = (typeof EVENT_NAMES)[number];

/** A lifecycle event as published on `emq:{q}:events` (bus.md §1.1): flat, every value a string. */
export interface LifecycleEvent {
  readonly event: EventName | 'unknown';
  readonly job: string;
  /** Extra fields such as `progress` or `outcome`. */
  readonly fields: Readonly<Record<string, string>>;
}

const KNOWN = new Set<string>(EVENT_NAMES);

/** Encodes an event with a standard JSON encoder, after checking the job id (bus.md §1.2). */
export function encodeEvent(event: EventName, job: string, extra: Readonly<Record<string, string>> = {}): string {
  assertBrandedId(job);
  return JSON.stringify({ ...extra, event, job });
}

/**
 * Parses one message off the events channel. Key order is free (the script side uses cjson), and a
 * name outside the known set is reported as `unknown`, never turned into a new type. Returns
 * `undefined` for a message that is not a flat JSON object of strings with an `event` and a `job`.
 */
export function parseEvent(message: string): LifecycleEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields: Record<string, string> = {};
  let event: string | undefined;
  let job: string | undefined;
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') return undefined;
    if (key === 'event') event = v;
    else if (key === 'job') job = v;
    else fields[key] = v;
  }
  if (event === undefined || job === undefined) return undefined;
  return { event: KNOWN.has(event) ? (event as EventName) : 'unknown', job, fields };
}
