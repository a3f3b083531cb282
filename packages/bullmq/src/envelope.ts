import { CodecError } from '@echo/protocol/queue';
import { storedOptions, type BackoffOptions, type DeduplicationOptions, type JobsOptions, type RepeatOptions } from './job-options.js';

/** The job options a job carries with it, as BullMQ shows them on `job.opts`. */
export interface StoredOptions {
  /** The id the application gave. */
  readonly jobId?: string;
  /** The delay it was added with, ms. */
  readonly delay?: number;
  /** Its priority (1 first; absent: before every prioritized job). */
  readonly priority?: number;
  /** Attempts before it fails for good. */
  readonly attempts?: number;
  /** The delay between attempts. */
  readonly backoff?: number | BackoffOptions;
  /** The newest log lines kept (each `job.log` trims the log to them). */
  readonly keepLogs?: number;
  /** The created time the application gave, epoch ms. */
  readonly timestamp?: number;
  /** The data size limit it was added under, bytes. */
  readonly sizeLimit?: number;
  /** How many failures' stack traces `job.stacktrace` keeps (0: none; absent: all). */
  readonly stackTraceLimit?: number;
  /** A scheduler's job: the scheduler's repeat options, with `count`, the run this job is. */
  readonly repeat?: RepeatOptions & { readonly count: number };
  /** A scheduler's job: the scheduler's id. */
  readonly repeatJobKey?: string;
  /** A scheduler's job: the run (epoch ms) it was made for. */
  readonly prevMillis?: number;
  /** The deduplication it was added with (its `id` is `job.deduplicationId`). */
  readonly deduplication?: DeduplicationOptions;
}

/**
 * The payload as stored: BullMQ's name, data, id and options travel with the job, because Echo's
 * row has no place for an id outside its own alphabet, and a flow child has no name field.
 */
export interface Envelope {
  /** The job's name. */
  readonly n: string;
  /** The job's data. */
  readonly d: unknown;
  /** The id the application gave (`jobId`); absent when Echo minted it. */
  readonly i?: string;
  /** When the job was created, epoch ms (BullMQ's `timestamp`). */
  readonly t: number;
  /** The job scheduler that makes it, as the application named it. */
  readonly r?: string;
  /** The options worth keeping (attempts, backoff, delay, priority, jobId, keepLogs, timestamp, sizeLimit, deduplication). */
  readonly o?: StoredOptions;
  /** A flow child's parent: its id and its queue's key (`bull:<queue>`), as BullMQ shows `job.parent`. */
  readonly p?: { readonly id: string; readonly queueKey: string };
  /** A flow parent's children, as BullMQ keys them (`bull:<queue>:<id>`), in the order given. */
  readonly k?: readonly string[];
  /** The Echo ids of `k`, in its order, when a child is keyed by its `jobId` rather than its Echo id. */
  readonly e?: readonly string[];
  /** Those of `k` whose failure removes the dependency (`removeDependencyOnFailure`): listed nowhere once failed. */
  readonly f?: readonly string[];
  /**
   * Starts that ended in a step move (`moveToDelayed`, `moveToWait` from the processor): Echo counts
   * every start as an attempt, BullMQ's `attemptsMade` counts only the starts that failed or completed.
   */
  readonly s?: number;
  /** Starts before the last `job.retry({ resetAttemptsStarted })`: `attemptsStarted` counts from there. */
  readonly a?: number;
}

/** How many of a job's starts were attempts BullMQ counts (failed or completed), of `starts` in all. */
export function attemptsMadeOf(envelope: Envelope, starts: number): number {
  return Math.max(0, starts - (envelope.s ?? 0));
}

/** How many starts BullMQ's `attemptsStarted` shows, of `starts` Echo counted. */
export function attemptsStartedOf(envelope: Envelope, starts: number): number {
  return Math.max(0, starts - (envelope.a ?? 0));
}

/** Reads an envelope back; a payload some other producer wrote is refused, not guessed at. */
export function openEnvelope(payload: unknown): Envelope {
  if (typeof payload !== 'object' || payload === null || !('n' in payload) || !('t' in payload)) {
    throw new CodecError('the payload is not a @echo/bullmq job (written by another producer?)');
  }
  return payload as Envelope;
}

/** The stored payload of a job; `id` is its BullMQ id (the `jobId`, or the one the queue's counter gave). */
export function makeEnvelope(name: string, data: unknown, opts: JobsOptions, id = opts.jobId): Envelope {
  const o = storedOptions(opts);
  return { n: name, d: data, t: opts.timestamp ?? Date.now(), ...(id === undefined ? {} : { i: id }), ...(o === undefined ? {} : { o }) };
}
