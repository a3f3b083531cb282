import type { ClaimedJob } from '../core/job.js';
import type { Leases } from '../lease/leases.js';
import type { LockPlane } from './lock-plane.js';

/**
 * The jobs a worker claimed and will not run, on their way back to the queue: a paused or closing
 * worker starts no handler, so what it holds ahead of its handlers (spares, a batch carried ahead,
 * a claim that landed after the pause) goes back at once, for another worker to take now rather
 * than after its lease lapses. Jobs handed over in the same turn go back in one `give_back` call.
 * A call that fails leaves them to lapse; the reaper then hands them on.
 */
export class GiveBacks {
  readonly #leases: Leases<unknown>;
  readonly #locks: LockPlane;
  readonly #onError: (error: unknown) => void;
  #queued: ClaimedJob<unknown>[] = [];
  #flushing: Promise<void> | undefined;

  constructor(leases: Leases<unknown>, locks: LockPlane, onError: (error: unknown) => void) {
    this.#leases = leases;
    this.#locks = locks;
    this.#onError = onError;
  }

  /** Hands `jobs` back: no longer ours from now on (the lock plane stops extending them). */
  add(jobs: readonly ClaimedJob<unknown>[]): void {
    if (jobs.length === 0) return;
    for (const job of jobs) this.#locks.untrack(job);
    this.#queued.push(...jobs);
    this.#flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#flush());
  }

  /** Resolves once everything handed over so far has been sent and answered (on close). */
  async settled(): Promise<void> {
    // Each pass awaits a flush that empties the queue it found; more can only come from new adds.
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    const jobs = this.#queued;
    this.#queued = [];
    try {
      await this.#leases.giveBack(jobs);
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#flushing = this.#queued.length > 0 ? this.#flush() : undefined;
    }
  }
}
