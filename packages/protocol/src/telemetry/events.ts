/**
 * The payloads of the telemetry hooks. Every hook carries measurements (durations in ms, counts)
 * and the metadata an exporter labels them with (queue, job id, attempt, stream, table). Payloads
 * are plain objects built only when someone listens; listeners must treat them as read-only.
 */

/** What every job hook says about the job. */
export interface JobHookBase {
  /** The queue's name (the `{q}` of its keys). */
  readonly queue: string;
  /** The job's id (a `JOB` branded id as text). */
  readonly jobId: string;
  /** The attempt number; also the fencing token of the lease. */
  readonly attempt: number;
  /** The lane the job was claimed from, for lane jobs. */
  readonly group?: string | undefined;
}

/** `emq.job.enqueue`: one admission call landed (one job, or a whole `enqueueMany`). */
export interface JobEnqueueEvent {
  /** The queue's name (the `{q}` of its keys). */
  readonly queue: string;
  /** The ids admitted (or found duplicate) by this call, in input order. */
  readonly jobIds: readonly string[];
  /** How many jobs the call carried. */
  readonly count: number;
  /** Wall time of the call, ms. */
  readonly durationMs: number;
  /** True when the jobs were scheduled for later (`runAt`/`delayMs`). */
  readonly delayed: boolean;
}

/** `emq.job.start`: a worker is about to run the handler of a claimed job. */
export type JobStartEvent = JobHookBase;

/** `emq.job.complete`: the completion of a job landed (its fencing token was accepted). */
export interface JobCompleteEvent extends JobHookBase {
  /** Handler start to settled completion, ms. */
  readonly durationMs: number;
}

/** `emq.job.fail`: a handler threw and the failure was settled; `outcome` says what became of the job. */
export interface JobFailEvent extends JobHookBase {
  /** Handler start to settled failure, ms. */
  readonly durationMs: number;
  /** The thrown value's message. */
  readonly error: string;
  /** `retry`: scheduled along the backoff curve; `dead`: dead-lettered at `maxAttempts`. */
  readonly outcome: 'retry' | 'dead';
}

/** `emq.job.retry`: a failed job was scheduled for another attempt. */
export type JobRetryEvent = JobFailEvent & { readonly outcome: 'retry' };

/** `emq.job.dead`: a job was dead-lettered (by a handler failure at `maxAttempts`). */
export type JobDeadEvent = JobFailEvent & { readonly outcome: 'dead' };

/** `emq.job.stalled`: the pump found a lapsed lease; the job was recovered or dead-lettered. */
export interface JobStalledEvent {
  /** The queue's name (the `{q}` of its keys). */
  readonly queue: string;
  /** The job's id. */
  readonly jobId: string;
  /** What became of the job. */
  readonly outcome: 'recovered' | 'dead';
}

/** What every stream hook says about the stream. */
export interface StreamHookBase {
  /** The queue the stream belongs to. */
  readonly queue: string;
  /** The stream's name. */
  readonly stream: string;
}

/** `emq.stream.append`: records were appended (one `append`, or one `appendBatch`). */
export interface StreamAppendEvent extends StreamHookBase {
  /** The record ids, in append order. */
  readonly ids: readonly string[];
  /** How many items the call or event covered. */
  readonly count: number;
  /** Wall time of the call, ms. */
  readonly durationMs: number;
}

/** `emq.stream.consume`: a group consumer ran its handler over one delivery of entries. */
export interface StreamConsumeEvent extends StreamHookBase {
  /** The consumer group's name. */
  readonly group: string;
  /** The consumer's name within its group. */
  readonly consumer: string;
  /** The entry ids handed to the handler. */
  readonly ids: readonly string[];
  /** How many items the call or event covered. */
  readonly count: number;
  /** Handler wall time over the whole delivery, ms. */
  readonly durationMs: number;
}

/** `emq.stream.ack`: a settlement of entries was sent (acked, retried or dead-lettered counts). */
export interface StreamAckEvent extends StreamHookBase {
  /** The consumer group's name. */
  readonly group: string;
  /** Entries acknowledged. */
  readonly acked: number;
  /** Entries left or scheduled for another delivery. */
  readonly retried: number;
}

/** `emq.stream.dead_letter`: entries were moved to the dead-letter stream. */
export interface StreamDeadLetterEvent extends StreamHookBase {
  /** The consumer group's name. */
  readonly group: string;
  /** How many items the call or event covered. */
  readonly count: number;
}

/** What every cache hook says. */
export interface CacheHookBase {
  /** The table (keyed namespace) name. */
  readonly table: string;
  /** The key, as the caller gave it. */
  readonly key: string;
}

/** `emq.cache.hit`: a read answered from a tier; `tier` says which. */
export interface CacheHitEvent extends CacheHookBase {
  /** `l1`: this process's memory; `l2`: the server. */
  readonly tier: 'l1' | 'l2';
}

/** `emq.cache.miss`: a read found nothing usable. */
export type CacheMissEvent = CacheHookBase;

/** `emq.cache.fill`: a loader ran and its value was stored. */
export interface CacheFillEvent extends CacheHookBase {
  /** Loader wall time, ms. */
  readonly durationMs: number;
}

/** `emq.cache.stale`: a read answered a value past its freshness, inside its grace. */
export type CacheStaleEvent = CacheHookBase;

/** `emq.cache.evict`: entries left L1 for space (LRU), not by invalidation. */
export interface CacheEvictEvent {
  /** The table (keyed namespace) name. */
  readonly table: string;
  /** How many items the call or event covered. */
  readonly count: number;
}
