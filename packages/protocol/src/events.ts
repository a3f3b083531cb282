import { assertBrandedId } from './ids/guards.js';

/**
 * The lifecycle event names of queue.md §12, plus the [TS] ones: `removed` (a job deleted by
 * `remove`), `waiting` (a job entered pending), `active` (a job was claimed), `deduplicated` (an
 * admission refused by its idempotency key), `drained` (a claim emptied pending) and `expired` (a
 * claim met a job past its deadline and settled it instead of leasing it). Anything else
 * off the wire reads as `unknown`.
 */
export const EVENT_NAMES = ['progress', 'completed', 'failed', 'delayed', 'stalled', 'scheduled', 'removed', 'waiting', 'active', 'deduplicated', 'drained', 'expired'] as const;

/** One lifecycle event name. */
export type EventName = (typeof EVENT_NAMES)[number];

/** An event that carries no extra fields of its own; a foreign one may still bring some. */
export type NoExtraFields = Readonly<Record<string, string>>;

/**
 * The extra fields each event carries as our scripts and hosts publish them (every value a string,
 * bus.md §1.1). They are optional in the type because a message off the wire is not ours to trust:
 * another runtime, or an older one, may leave one out.
 */
export interface LifecycleEventFields {
  /** `progress`: the value as text; `progress_type` says how text that is not a number decodes. */
  readonly progress: { readonly progress?: string; readonly progress_type?: string };
  /** `completed`: no extra fields. */
  readonly completed: NoExtraFields;
  /** `failed`: `outcome` is `scheduled` (it will retry) or `dead`. */
  readonly failed: { readonly outcome?: string };
  /** `delayed`: `runAt` (epoch ms) or `delayMs` when known. */
  readonly delayed: { readonly runAt?: string; readonly delayMs?: string };
  /** `stalled`: `outcome` is `recovered` or `dead`. */
  readonly stalled: { readonly outcome?: string };
  /** `scheduled`: no extra fields. */
  readonly scheduled: NoExtraFields;
  /** `removed` [TS]: `state` is the state the job was removed from (`pending`, `scheduled`, `dead`, …). */
  readonly removed: { readonly state?: string };
  /** `waiting` [TS, chatty]: no extra fields. */
  readonly waiting: NoExtraFields;
  /** `active` [TS, chatty]: `attempt` is the attempt the claim started (1 for the first). */
  readonly active: { readonly attempt?: string };
  /**
   * `deduplicated` [TS]: `job` is the job already parked (the one kept); `dedup` the key, `refused`
   * the id turned away; with a dedup mode, `mode` (`extend`, `replace`, `debounce`) and `replaced`
   * (`"1"` when the kept job took the refused admission's payload); `kept` = `"1"` when the refused
   * admission was kept to be admitted once the active parked job ends (`keepLast`).
   */
  readonly deduplicated: { readonly dedup?: string; readonly refused?: string; readonly mode?: string; readonly replaced?: string; readonly kept?: string };
  /** `drained` [TS, chatty]: a queue-level event, `job` is `""`. */
  readonly drained: NoExtraFields;
  /** `expired` [TS]: `expireAt` is the deadline the claim found passed (server epoch ms). */
  readonly expired: { readonly expireAt?: string };
  /** A name outside the known set: whatever fields it came with. */
  readonly unknown: NoExtraFields;
}

/** A lifecycle event as published on `emq:{q}:events` (bus.md §1.1): flat, every value a string. */
export interface LifecycleEvent {
  readonly event: EventName | 'unknown';
  /** The job's branded id; `""` for a queue-level event (`drained`) [TS]. */
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
