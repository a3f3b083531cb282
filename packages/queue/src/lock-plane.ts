import type { JobId } from '@echo/protocol';
import type { CancelToken } from './cancel.js';
import type { ClaimedJob } from './job.js';
import type { Queue } from './queue.js';

interface Held {
  readonly job: ClaimedJob<unknown>;
  readonly cancel: CancelToken;
}

/**
 * The jobs one worker holds, and the heartbeat that keeps their leases alive (queue.md §6.4). Each
 * beat extends every lease in one script call under one server time; a job whose lease could not be
 * extended (reaped and re-claimed elsewhere, or removed) has its cancel token fired so the handler
 * can stop early: its settlement would be refused anyway.
 */
export class LockPlane {
  readonly #queue: Queue;
  readonly #held = new Map<JobId, Held>();
  readonly #leaseMs: number;
  readonly #markerTtlMs: number;
  readonly #markers: boolean;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(queue: Queue, options: { leaseMs: number; extendEveryMs: number; markers: boolean; onError: (error: unknown) => void }) {
    this.#queue = queue;
    this.#leaseMs = options.leaseMs;
    this.#markerTtlMs = options.leaseMs * 2;
    this.#markers = options.markers;
    this.#onError = options.onError;
    this.#timer = setInterval(() => void this.beat(), options.extendEveryMs);
    this.#timer.unref();
  }

  /** How many jobs are held. */
  get size(): number {
    return this.#held.size;
  }

  /** Starts tracking a claimed job; writes its presence marker without waiting for the reply. */
  track(job: ClaimedJob<unknown>, cancel: CancelToken): void {
    this.#held.set(job.id, { job, cancel });
    if (this.#markers) {
      this.#queue.connection
        .command('SET', this.#queue.keys.jobSub(job.id, 'lock'), String(job.attempts), 'PX', this.#markerTtlMs)
        .catch(this.#onError);
    }
  }

  /** Stops tracking a settled job and drops its marker; never touches `active`. */
  untrack(job: ClaimedJob<unknown>): void {
    this.#held.delete(job.id);
    if (this.#markers) this.#queue.connection.command('DEL', this.#queue.keys.jobSub(job.id, 'lock')).catch(this.#onError);
  }

  /** Cancels every held job's token (on a close that ran out of patience). */
  cancelAll(reason: string): void {
    for (const { cancel } of this.#held.values()) cancel.cancel(reason);
  }

  /** One heartbeat: extend every held lease, refresh markers, and fire tokens of jobs we lost. */
  async beat(): Promise<void> {
    if (this.#held.size === 0) return;
    const held = [...this.#held.values()];
    try {
      const missed = new Set(await this.#queue.extendLocks(held.map((h) => h.job), this.#leaseMs));
      for (const { job, cancel } of held) {
        if (missed.has(job.id)) cancel.cancel('lease lost');
        else if (this.#markers) {
          this.#queue.connection.command('PEXPIRE', this.#queue.keys.jobSub(job.id, 'lock'), this.#markerTtlMs).catch(this.#onError);
        }
      }
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Stops the heartbeat. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
