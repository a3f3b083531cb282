/**
 * The fixed per-queue suffixes of the closed registry (protocol.md §3.1, `fixedType`). Any other
 * suffix is either one of the parameterised forms or not ours. [TS] `completed` and `dead:at` are the
 * retention indexes: retained completed jobs, and dead jobs, each scored by finish time. [TS]
 * `outcomes` is the short stream of recent completions a waiter reads when the row is already gone.
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
