/**
 * The fixed per-queue suffixes of the closed registry (protocol.md §3.1, `fixedType`). Any other
 * suffix is either one of the parameterised forms or not ours. [TS] `completed` and `dead:at` are the
 * retention indexes: retained completed jobs, and dead jobs, each scored by finish time. [TS]
 * `outcomes` is the short stream of recent completions a waiter reads when the row is already gone.
 * [TS] `expired` indexes the jobs a claim met past their deadline, scored by finish time.
 */
export const FIXED_TYPES = [
  'pending',
  'active',
  'schedule',
  'dead',
  'meta',
  'limiter',
  'ring',
  'wake',
  'paused',
  'gactive',
  'glimit',
  'gweight',
  'repeat',
  'flow:outbox',
  'workers',
  'workers:info',
  'grate',
  'waiting-children',
  'completed',
  'dead:at',
  'journal',
  'outcomes',
  'expired',
] as const;

/** One fixed per-queue suffix. */
export type FixedType = (typeof FIXED_TYPES)[number];

/** The two counters with a `metrics:` key (and a reserved `:data` list each). */
export const METRICS = ['completed', 'failed'] as const;

/** A metrics counter name. */
export type Metric = (typeof METRICS)[number];

/**
 * The closed set of job subkeys. Scripts may root a key on `job:<id>` only with one of these
 * (protocol.md §6.1), so the parser accepts no others. [TS] `attempts` is a job's attempt history
 * (a LIST of records, see `parseAttempts`), written when the queue meta's `history` is set.
 */
export const JOB_SUBS = ['lock', 'logs', 'dependencies', 'processed', 'failed', 'unsuccessful', 'attempts'] as const;

/** A job subkey suffix. */
export type JobSub = (typeof JOB_SUBS)[number];

const fixedTypes: ReadonlySet<string> = new Set(FIXED_TYPES);
const metrics: ReadonlySet<string> = new Set(METRICS);
const jobSubs: ReadonlySet<string> = new Set(JOB_SUBS);

/** True when `value` is a registered fixed suffix. */
export function isFixedType(value: unknown): value is FixedType {
  return typeof value === 'string' && fixedTypes.has(value);
}

/** True when `value` is `completed` or `failed`. */
export function isMetric(value: unknown): value is Metric {
  return typeof value === 'string' && metrics.has(value);
}

/** True when `value` is a registered job subkey. */
export function isJobSub(value: unknown): value is JobSub {
  return typeof value === 'string' && jobSubs.has(value);
}

/**
 * [TS] The state a stream keeps beside its log, as `stream:<name>:<part>`: `msgids` (a hash of
 * publish message id to the EVT id it was first appended under) and `msgids:until` (a sorted set of
 * the same message ids by when their dedup window ends), `order` (the per-key order registry of the
 * stream's consumer groups: a sorted set of `<group>\0<len>:<key>\0<xid>` members, read by lex
 * range) and `paused` (a hash of the stream's paused consumer groups).
 */
export const STREAM_PARTS = ['msgids', 'msgids:until', 'order', 'paused'] as const;

/** One part of a stream's state. */
export type StreamPart = (typeof STREAM_PARTS)[number];

const streamParts: ReadonlySet<string> = new Set(STREAM_PARTS);

/** True when `value` is a registered stream part. */
export function isStreamPart(value: unknown): value is StreamPart {
  return typeof value === 'string' && streamParts.has(value);
}
