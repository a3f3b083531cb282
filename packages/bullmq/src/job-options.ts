import { checkTimeBound, InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import type { EnqueueOptions, KeepBound } from '@echo/queue';
import type { StoredOptions } from './envelope.js';
import { BullMQInputError, NotSupportedError } from './errors.js';
import { keyOfJobId } from './ids.js';

/** BullMQ's retry delay: a built-in curve (`fixed`, `exponential`) or a custom type the worker knows. */
export interface BackoffOptions {
  /** `fixed`, `exponential`, or a name the worker's `settings.backoffStrategy` reads. */
  readonly type: string;
  /** The base delay in ms. */
  readonly delay?: number;
  /** Up to this fraction (0 to 1) of the delay is taken off at random. */
  readonly jitter?: number;
}

/** BullMQ's retention of finished jobs: all (`false`), none (`true`), the newest `n`, or an age/count bound. */
export type KeepJobs = boolean | number | { readonly age?: number; readonly count?: number };

/** BullMQ's `repeat` option, kept as a job scheduler. */
export interface RepeatOptions {
  /** Every this many ms. */
  readonly every?: number;
  /** A cron pattern. */
  readonly pattern?: string;
  /** The cron pattern's time zone. */
  readonly tz?: string;
  /** At most this many runs. */
  readonly limit?: number;
  /** No run before this time. */
  readonly startDate?: Date | string | number;
  /** No run after this time. */
  readonly endDate?: Date | string | number;
  /** The scheduler's id; default `<name>:<every or pattern>`. */
  readonly key?: string;
  /** With `every`: the slot within each period the runs fall on, ms. */
  readonly offset?: number;
  /** A pattern's first run now rather than at its next match. */
  readonly immediately?: boolean;
}

/** BullMQ's simple-mode deduplication: one job per `id` while it lives (or for `ttl` ms). */
export interface DeduplicationOptions {
  /** The deduplication id. */
  readonly id: string;
  /** Hold the id this many ms, instead of until the job ends. */
  readonly ttl?: number;
  /** Each duplicate restarts the `ttl` window (needs `ttl`). */
  readonly extend?: boolean;
  /** Each duplicate gives the kept job its data while the job still waits. */
  readonly replace?: boolean;
  /**
   * A duplicate added while the kept job is active is kept in turn (the newest wins) and added,
   * with its own delay, when the active job ends (completes, or fails for good); the id then holds
   * until its job ends, whatever the `ttl`. Echo's name: `dedupKeepLast`.
   */
  readonly keepLastIfActive?: boolean;
}

/** The options of `queue.add`, as BullMQ names them. */
export interface JobsOptions {
  /** The job's id: any string; a second add with the same id returns the first job. */
  readonly jobId?: string;
  /** Wait this many ms before the job may run. */
  readonly delay?: number;
  /** 1 (first) to 2,097,152 (last); a job without priority runs before every prioritized one. */
  readonly priority?: number;
  /** Attempts before the job fails for good. Default 1. */
  readonly attempts?: number;
  /** The delay between attempts. */
  readonly backoff?: number | BackoffOptions;
  /** Finished-job retention on success (a queue-wide setting here). */
  readonly removeOnComplete?: KeepJobs;
  /** Finished-job retention on failure (a queue-wide setting here). */
  readonly removeOnFail?: KeepJobs;
  /** Makes the job repeat: kept as a job scheduler. */
  readonly repeat?: RepeatOptions;
  /** Drop the add while a job with this deduplication id lives. */
  readonly deduplication?: DeduplicationOptions;
  /** Claimed before every job already waiting at its priority (newest first). */
  readonly lifo?: boolean;
  /** The job's creation time as the app sees it (epoch ms), for imports; default the time of the add. */
  readonly timestamp?: number;
  /**
   * The job is a child of job `id` of queue `queue` (its qualified name, `<prefix>:<queue>`), which
   * must exist and not have finished: the parent waits for this child too.
   */
  readonly parent?: { readonly id: string; readonly queue: string };
  /** Keep only the newest this many lines of the job's log (each `job.log` trims it); 0 keeps all. */
  readonly keepLogs?: number;
  /** How many failures' stack traces `job.stacktrace` keeps, newest last (0: none; absent: all). */
  readonly stackTraceLimit?: number;
  /** Refuse the add when the data, as JSON, is longer than this many bytes (UTF-8). */
  readonly sizeLimit?: number;
  /** Flow failure options: read by `FlowProducer` only. */
  readonly failParentOnFailure?: boolean;
  /** Flow failure options: read by `FlowProducer` only. */
  readonly ignoreDependencyOnFailure?: boolean;
  /**
   * Flow failure options: read by `FlowProducer` only (the parent stops waiting for this child when
   * it fails for good, and lists it nowhere).
   */
  readonly removeDependencyOnFailure?: boolean;
  /** Flow failure options: read by `FlowProducer` only (the parent runs at once when this child fails). */
  readonly continueParentOnFailure?: boolean;
}

const UNSUPPORTED: Readonly<Record<string, string>> = {
  telemetry: 'tracing comes through @echo/otel',
};

const checkJobOptions = strictOptions('job options', {
  known: [
    'jobId', 'delay', 'priority', 'attempts', 'backoff', 'removeOnComplete', 'removeOnFail', 'repeat', 'deduplication',
    'lifo', 'timestamp', 'sizeLimit', 'keepLogs', 'stackTraceLimit', 'failParentOnFailure', 'ignoreDependencyOnFailure', 'continueParentOnFailure', 'removeDependencyOnFailure', 'debounce', 'parent', ...Object.keys(UNSUPPORTED),
  ],
  hints: { delayMs: 'BullMQ spelling here: delay (ms)', key: 'BullMQ spelling here: jobId', dedupId: 'BullMQ spelling here: deduplication: { id }' },
  bounds: { delay: 'span' },
});
const checkBackoff = strictOptions('job options.backoff', { known: ['type', 'delay', 'jitter'], bounds: { delay: 'span' } });
const checkDedup = strictOptions('job options.deduplication', { known: ['id', 'ttl', 'extend', 'replace', 'keepLastIfActive'], bounds: { ttl: 'span' } });
const checkKeep = strictOptions('job options.removeOnComplete', { known: ['age', 'count'] });
const checkParent = strictOptions('job options.parent', { known: ['id', 'queue'] });

/** A `parent` option names a job id and its queue's qualified name (`<prefix>:<queue>`). */
function checkParentOption(parent: { readonly id: string; readonly queue: string }): void {
  checkParent(parent);
  if (typeof parent.id !== 'string' || parent.id === '') throw new InvalidArgumentError('parent.id', 'must be a non-empty string');
  if (typeof parent.queue !== 'string' || parent.queue.lastIndexOf(':') <= 0) throw new InvalidArgumentError('parent.queue', "must be the parent queue's qualified name, <prefix>:<queue>");
}

/** A log bound (`keepLogs`, or the argument of `clearLogs` / `addJobLog`): an integer >= 0 when given. */
export function checkKeepLogs(keepLogs: number | undefined): void {
  if (keepLogs !== undefined && (!Number.isSafeInteger(keepLogs) || keepLogs < 0)) throw new InvalidArgumentError('keepLogs', 'must be an integer >= 0');
}

/** A child's failure policies, at most one of which a job may take (BullMQ's order, for its message). */
const EXCLUSIVE = ['removeDependencyOnFailure', 'failParentOnFailure', 'continueParentOnFailure', 'ignoreDependencyOnFailure'] as const;

/**
 * The options as BullMQ reads them: an empty `jobId` is no id (BullMQ numbers the job itself), so
 * it is dropped before anything checks it.
 */
export function withoutEmptyJobId<T extends JobsOptions>(options: T): T {
  if (options.jobId !== '') return options;
  const { jobId: _empty, ...rest } = options;
  return rest as T;
}

/**
 * The stack traces a job shows after a failure with `stack`, as BullMQ keeps them: `limit` 0 keeps
 * none, a number the newest that many, none given every one.
 */
export function withStack(stacktrace: readonly string[], stack: string | undefined, limit: number | undefined): string[] {
  const all = stack === undefined ? [...stacktrace] : [...stacktrace, stack];
  if (limit === 0) return [];
  return limit === undefined ? all : all.slice(-limit);
}

/** BullMQ's highest priority number (2^21 - 1); Echo's own range is as wide, higher first. */
export const MAX_PRIORITY = 2 ** 21 - 1;

/** Checks a job's options and refuses what cannot be honoured, before anything is written. */
export function checkOptions(options: JobsOptions, flowChild = false): void {
  checkJobOptions(options);
  // BullMQ's own refusals come first, with its texts: applications match on them.
  const exclusive = EXCLUSIVE.filter((name) => (options as Record<string, unknown>)[name]);
  if (exclusive.length > 1) throw new BullMQInputError(exclusive.join(', '), `The following options cannot be used together: ${exclusive.join(', ')}`);
  if (Object.hasOwn(options, 'debounce')) throw new BullMQInputError('debounce', 'Debounce option has been removed. Use deduplication option instead');
  for (const name of Object.keys(UNSUPPORTED)) {
    if ((options as Record<string, unknown>)[name] !== undefined) {
      throw new NotSupportedError(`job option ${name}`, UNSUPPORTED[name] ?? '');
    }
  }
  if (options.parent !== undefined) checkParentOption(options.parent);
  const policy = EXCLUSIVE.find((name) => options[name] !== undefined);
  if (!flowChild && options.parent === undefined && policy !== undefined) {
    throw new NotSupportedError(`job option ${policy}`, 'it applies to flow children: add them through FlowProducer, or with a parent option');
  }
  if (options.timestamp !== undefined && (!Number.isSafeInteger(options.timestamp) || options.timestamp < 0)) throw new InvalidArgumentError('timestamp', 'must be epoch ms, an integer >= 0');
  if (options.jobId !== undefined && (typeof options.jobId !== 'string' || options.jobId === '')) throw new InvalidArgumentError('jobId', 'must be a non-empty string');
  checkBullMQJobOptions(options);
  if (options.priority !== undefined && (!Number.isSafeInteger(options.priority) || options.priority < 0)) {
    throw new InvalidArgumentError('priority', `must be an integer from 0 to ${String(MAX_PRIORITY)}`);
  }
  if (options.delay !== undefined && (!Number.isFinite(options.delay) || options.delay < 0)) throw new InvalidArgumentError('delay', 'must be a number of ms >= 0');
  checkKeepLogs(options.keepLogs);
  const { stackTraceLimit } = options;
  if (stackTraceLimit !== undefined && (!Number.isSafeInteger(stackTraceLimit) || stackTraceLimit < 0)) throw new InvalidArgumentError('stackTraceLimit', 'must be an integer >= 0');
  if (options.attempts !== undefined && (!Number.isSafeInteger(options.attempts) || options.attempts < 1)) throw new InvalidArgumentError('attempts', 'must be an integer >= 1');
  if (typeof options.backoff === 'object') {
    checkBackoff(options.backoff);
    if (typeof options.backoff.type !== 'string') throw new InvalidArgumentError('backoff.type', 'must be a string');
    const { jitter } = options.backoff;
    if (jitter !== undefined && (!Number.isFinite(jitter) || jitter < 0 || jitter > 1)) throw new InvalidArgumentError('backoff.jitter', 'must be a number from 0 to 1');
  } else if (options.backoff !== undefined && (!Number.isFinite(options.backoff) || options.backoff < 0)) {
    throw new InvalidArgumentError('backoff', 'must be a number of ms or { type, delay }');
  } else {
    checkTimeBound('job options', 'backoff', options.backoff, 'span');
  }
  if (options.deduplication !== undefined) {
    checkDedup(options.deduplication);
    // Only `true` asks for it: anything but a boolean would otherwise be read as "no".
    const { keepLastIfActive } = options.deduplication;
    if (keepLastIfActive !== undefined && typeof keepLastIfActive !== 'boolean') throw new InvalidArgumentError('deduplication.keepLastIfActive', 'must be a boolean');
  }
  for (const keep of [options.removeOnComplete, options.removeOnFail]) {
    if (typeof keep !== 'object') continue;
    checkKeep(keep);
    // BullMQ's age is in seconds: bounded as the ms it becomes.
    if (typeof keep.age === 'number') checkTimeBound('job options.removeOnComplete', 'age', keep.age * 1000, 'span');
  }
}

/**
 * The refusals BullMQ makes of a job's options, with its texts. A custom id that reads as an
 * integer is refused because the queue numbers its own jobs that way (`'1'`, `'2'`, …).
 */
function checkBullMQJobOptions(options: JobsOptions): void {
  const { jobId, priority, deduplication, backoff } = options;
  if (jobId !== undefined) {
    if (jobId === '0' || jobId.startsWith('0:')) throw new BullMQInputError('jobId', "JobId cannot be '0' or start with '0:'");
    if (String(Number.parseInt(jobId, 10)) === jobId) throw new BullMQInputError('jobId', 'Custom Id cannot be integers');
    if (jobId.includes(':') && jobId.split(':').length !== 3) throw new BullMQInputError('jobId', 'Custom Id cannot contain :');
  }
  if (typeof priority === 'number' && priority !== 0) {
    if (Math.trunc(priority) !== priority) throw new BullMQInputError('priority', 'Priority should not be float');
    if (priority > MAX_PRIORITY) throw new BullMQInputError('priority', `Priority should be between 0 and ${String(MAX_PRIORITY)}`);
  }
  if (deduplication !== undefined && !deduplication.id) throw new BullMQInputError('deduplication.id', 'Deduplication id must be provided');
  if (typeof backoff === 'object' && typeof backoff.jitter === 'number' && (backoff.jitter < 0 || backoff.jitter > 1)) {
    throw new BullMQInputError('backoff.jitter', 'Jitter should be between 0 and 1');
  }
}

/** The options that travel with the job (shown on `job.opts`, read by the worker for backoff). */
export function storedOptions(options: JobsOptions): StoredOptions | undefined {
  const { jobId, delay, priority, attempts, backoff, keepLogs, timestamp, sizeLimit, stackTraceLimit, deduplication } = options;
  const shown = {
    ...(keepLogs ? { keepLogs } : {}),
    ...(timestamp === undefined ? {} : { timestamp }),
    ...(sizeLimit === undefined ? {} : { sizeLimit }),
    ...(stackTraceLimit === undefined ? {} : { stackTraceLimit }),
    ...(deduplication === undefined ? {} : { deduplication }),
  };
  if (jobId === undefined && delay === undefined && priority === undefined && attempts === undefined && backoff === undefined && Object.keys(shown).length === 0) return undefined;
  return {
    ...shown,
    ...(jobId === undefined ? {} : { jobId }),
    ...(delay === undefined ? {} : { delay }),
    ...(priority === undefined ? {} : { priority }),
    ...(attempts === undefined ? {} : { attempts }),
    ...(backoff === undefined ? {} : { backoff }),
  };
}

/**
 * Echo's admission options for BullMQ's: `jobId` becomes a business key (so `getJob(jobId)` finds
 * the job), priority flips to Echo's higher-first order (BullMQ runs 1 before 2, and unprioritized
 * jobs before both), `delay` is `delayMs`.
 */
export function enqueueOptions(options: JobsOptions, id = options.jobId): EnqueueOptions {
  const out: { -readonly [K in keyof EnqueueOptions]: EnqueueOptions[K] } = {};
  // A counted id is a business key too, so getJob finds the job; beside a deduplication id the job
  // holds both (the id is checked first, as BullMQ checks a jobId before deduplicating).
  if (id !== undefined) out.key = keyOfJobId(id);
  if (options.delay !== undefined && options.delay > 0) out.delayMs = Math.round(options.delay);
  if (options.priority !== undefined && options.priority > 0) out.priority = -options.priority;
  if (options.attempts !== undefined) out.attempts = options.attempts;
  if (options.lifo === true) out.lifo = true;
  if (options.timestamp !== undefined) out.timestamp = options.timestamp;
  if (options.deduplication !== undefined) {
    const { id, ttl, extend, replace, keepLastIfActive } = options.deduplication;
    out.dedupId = keyOfJobId(id);
    if (ttl !== undefined) out.dedupTtlMs = ttl;
    if (keepLastIfActive === true) out.dedupKeepLast = true;
    // BullMQ's extend restarts the window on each duplicate, replace gives the waiting job the new
    // data; both together are its debounce.
    if (extend === true) out.dedupMode = replace === true ? 'debounce' : 'extend';
    else if (replace === true) out.dedupMode = 'replace';
  }
  return out;
}

/** Echo's retention bound for BullMQ's `removeOnComplete`/`removeOnFail` (ages are seconds in BullMQ). */
export function keepBound(keep: KeepJobs): KeepBound {
  if (keep === true) return { count: 0 };
  if (keep === false) return { count: Number.POSITIVE_INFINITY };
  if (typeof keep === 'number') return { count: keep };
  return {
    ...(keep.count === undefined ? {} : { count: keep.count }),
    ...(keep.age === undefined ? {} : { ageMs: keep.age * 1000 }),
  };
}

/** BullMQ's per-job size limit: the data as JSON, in UTF-8 bytes, refused with its text past `sizeLimit`. */
export function checkSize(name: string, data: unknown, options: JobsOptions): void {
  const limit = options.sizeLimit;
  if (limit === undefined) return;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidArgumentError('sizeLimit', 'must be an integer number of bytes >= 1');
  // JSON.stringify answers undefined for undefined data (its type says string).
  const text = JSON.stringify(data) as string | undefined;
  if (Buffer.byteLength(text ?? '', 'utf8') > limit) throw new BullMQInputError('sizeLimit', `The size of job ${name} exceeds the limit ${String(limit)} bytes`);
}
