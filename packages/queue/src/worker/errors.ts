import { EchoError } from '@echo/protocol/queue';
import { CancelledError } from './cancel.js';

/**
 * Thrown by a handler to dead-letter its job at once: no further attempt can succeed (a malformed
 * order, a deleted account). The job dies with this error's message as `last_error`, whatever
 * attempts it had left.
 */
export class UnrecoverableError extends EchoError {
  constructor(message: string, options?: ErrorOptions) {
    super('unrecoverable', message, options);
  }
}

/**
 * The failure of an attempt that ran past its job's `timeoutMs`. It is also the abort reason of the
 * handler's `signal`, so `fetch` and timers given that signal stop with it. The attempt is retried
 * like any failure; the handler is not awaited any longer (its late result is ignored).
 */
export class JobTimeoutError extends CancelledError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`timed out after ${String(timeoutMs)} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * [TS] The failure a worker's `failed` listeners get for a job the stalled sweep dead-lettered: its
 * lease lapsed `maxStalled` times (the holder died or hung), so it is dead with `last_error`
 * "stalled". Reported by the worker whose sweep found it, which need not be the one that held it.
 */
export class JobStalledError extends EchoError {
  readonly jobId: string;

  constructor(jobId: string) {
    super('job_stalled', `job ${jobId} stalled: its lease lapsed too many times and it was dead-lettered`);
    this.jobId = jobId;
  }
}
