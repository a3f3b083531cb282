import { InvalidArgumentError } from './errors/validation.js';

/** The values a job row's `state` field takes (protocol.md §5.3). Closed. */
export const ROW_STATES = ['pending', 'active', 'scheduled', 'dead', 'awaiting_children'] as const;

/** One row state. */
export type RowState = (typeof ROW_STATES)[number];

/** Every field the protocol writes on a job row (protocol.md §5.1). */
export const JOB_FIELDS = [
  'state',
  'attempts',
  'payload',
  'group',
  'last_error',
  'progress',
  'stalled',
  'parent',
  'parent_queue',
  'parent_policy',
  'lock',
] as const;

/** One job row field name. */
export type JobField = (typeof JOB_FIELDS)[number];

/**
 * A flow child's failure policy: `fp` fails the parent, `id` ignores the dependency, [TS] `cp`
 * continues the parent (as `id`, and the parent runs at once, its other children still open).
 */
export type ParentPolicy = 'fp' | 'id' | 'cp';

/**
 * A job row as stored, typed. Known fields are parsed; fields this build does not know are kept in
 * `unknown` and never interpreted, as protocol.md §5.1 requires of readers.
 */
export interface JobRow {
  /** `undefined` when the stored value is not one of {@link ROW_STATES} (a newer writer, or damage). */
  readonly state: RowState | undefined;
  /** The raw `state` text, whatever it is. */
  readonly rawState: string | undefined;
  readonly attempts: number;
  readonly payload: string;
  readonly group: string | undefined;
  readonly lastError: string | undefined;
  readonly progress: string | undefined;
  readonly stalled: number;
  readonly parent: string | undefined;
  readonly parentQueue: string | undefined;
  /** An absent or unrecognised policy reads as `fp` (queue.md §3.4). */
  readonly parentPolicy: ParentPolicy;
  readonly lock: string | undefined;
  readonly unknown: Readonly<Record<string, string>>;
}

const KNOWN = new Set<string>(JOB_FIELDS);
const STATES = new Set<string>(ROW_STATES);

/** Turns an `HGETALL` reply (flat array or map) into field → value. */
export function hashReply(reply: unknown): Record<string, string> {
  if (Array.isArray(reply)) {
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
    return out;
  }
  if (reply instanceof Map) return Object.fromEntries([...reply].map(([k, v]) => [String(k), String(v)]));
  if (reply === null || reply === undefined) return {};
  if (typeof reply === 'object') return Object.fromEntries(Object.entries(reply).map(([k, v]) => [k, String(v)]));
  throw new InvalidArgumentError('hash reply', 'expected a field/value list or map');
}

function count(value: string | undefined): number {
  const n = Number(value ?? '0');
  return Number.isSafeInteger(n) ? n : 0;
}

/** Reads a job row; `undefined` when the hash is empty (the row does not exist). */
export function parseJobRow(fields: Readonly<Record<string, string>>): JobRow | undefined {
  if (Object.keys(fields).length === 0) return undefined;
  const unknown: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) if (!KNOWN.has(key)) unknown[key] = value;
  const rawState = fields.state;
  return {
    state: rawState !== undefined && STATES.has(rawState) ? (rawState as RowState) : undefined,
    rawState,
    attempts: count(fields.attempts),
    payload: fields.payload ?? '',
    group: fields.group,
    lastError: fields.last_error,
    progress: fields.progress,
    stalled: count(fields.stalled),
    parent: fields.parent,
    parentQueue: fields.parent_queue,
    parentPolicy: fields.parent_policy === 'id' || fields.parent_policy === 'cp' ? fields.parent_policy : 'fp',
    lock: fields.lock,
    unknown,
  };
}

/** The queue's `meta` hash (protocol.md §5.2). */
export interface QueueMeta {
  readonly paused: boolean;
  /** The active ceiling consulted by `is_maxed`; 0 when unset. */
  readonly concurrency: number;
  /** The rate window's cap; 0 when unset. */
  readonly max: number;
}

/** Reads the `meta` hash. */
export function parseMeta(fields: Readonly<Record<string, string>>): QueueMeta {
  return { paused: fields.paused !== undefined, concurrency: count(fields.concurrency), max: count(fields.max) };
}

/** A repeat record `repeat:<name>` (protocol.md §5.2). */
export interface RepeatRecord {
  readonly everyMs: number;
  readonly template: string;
}

/** Reads a repeat record; `undefined` when it is missing or incomplete. */
export function parseRepeatRecord(fields: Readonly<Record<string, string>>): RepeatRecord | undefined {
  const every = Number(fields.every_ms);
  if (fields.template === undefined || !Number.isSafeInteger(every) || every <= 0) return undefined;
  return { everyMs: every, template: fields.template };
}
