import type { Job, JobProgress } from '../job.js';

/** A processor: runs one job; its return value is the job's `returnvalue`. */
export type Processor<D = unknown, R = unknown, N extends string = string> = (job: Job<D, R, N>, token?: string, signal?: AbortSignal) => Promise<R>;

/** The worker's events and their arguments, as BullMQ emits them. */
export interface WorkerListener<D = unknown, R = unknown, N extends string = string> {
  /** The worker took the job. */
  active(job: Job<D, R, N>, prev: string): void;
  /** The job completed with `result`. */
  completed(job: Job<D, R, N>, result: R, prev: string): void;
  /** An attempt failed (the job may retry); `job` is undefined when it could not be read. */
  failed(job: Job<D, R, N> | undefined, error: Error, prev: string): void;
  /** The running job reported progress. */
  progress(job: Job<D, R, N>, progress: JobProgress): void;
  /** The queue has no waiting job left. */
  drained(): void;
  /** The worker hit an error it survives (or the one that stopped it). */
  error(failedReason: Error): void;
  /** A job's lock lapsed and it was taken back. */
  stalled(jobId: string, prev: string): void;
  /** The worker began to close. */
  closing(msg: string): void;
  /** The worker closed. */
  closed(): void;
  /** The worker paused (after its running jobs ended, unless paused with `doNotWaitActive`). */
  paused(): void;
  /** The worker resumed. */
  resumed(): void;
  /** The worker is connected. */
  ready(): void;
}
