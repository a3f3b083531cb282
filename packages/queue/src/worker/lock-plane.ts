import type { JobId } from '@echo/protocol/queue';
import type { CancelToken } from './cancel.js';
import type { ClaimedJob } from '../core/job.js';
import { claimDeadline, type Leases } from '../lease/leases.js';
import { localNow } from '../core/clock.js';

interface Held {
  readonly job: ClaimedJob<unknown>;
  readonly cancel: CancelToken;
  /** The latest local time the lease can end: the claim's or the last extension's send time plus the lease. */
  until: number;
}

/**
 * The jobs one worker holds, and the heartbeat that keeps their leases alive (queue.md §6.4). Each
 * beat extends every lease in one script call under one server time; a job whose lease could not be
 * extended (reaped and re-claimed elsewhere, or removed) has its cancel token fired so the handler
 * can stop early: its settlement would be refused anyway.
 */
export class LockPlane {
  readonly #leases: Leases<unknown>;
  readonly #held = new Map<JobId, Held>();
  readonly #leaseMs: number;
  readonly #markerTtlMs: number;
  readonly #markers: boolean;
  readonly #extend: boolean;
  readonly #onError: (error: unknown) => void;
  readonly #onBeat: (() => Promise<void>) | undefined;
  #timer: NodeJS.Timeout | undefined;

  /**
   * `onBeat` rides on every beat, held jobs or not (the worker's registry entry): it costs the
   * worker no timer of its own, and goes out beside the lease extension.
   */
  constructor(leases: Leases<unknown>, options: { leaseMs: number; extendEveryMs: number; markers: boolean; extend: boolean; onError: (error: unknown) => void; onBeat?: () => Promise<void> }) {
    this.#leases = leases;
    this.#leaseMs = options.leaseMs;
    this.#markerTtlMs = options.leaseMs * 2;
    this.#markers = options.markers;
    this.#extend = options.extend;
    this.#onError = options.onError;
    this.#onBeat = options.onBeat;
    this.#timer = setInterval(() => void this.beat(), options.extendEveryMs);
    this.#timer.unref();
  }

  /** How many jobs are held. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * What claims pass so the claim script itself writes each job's presence marker (twice the
   * lease, refreshed every beat): the lock plane then costs no extra round trip per job.
   */
  get claimOptions(): { markerTtlMs?: number } {
    return this.#markers ? { markerTtlMs: this.#markerTtlMs } : {};
  }

  /** Starts tracking a claimed job. */
  track(job: ClaimedJob<unknown>, cancel: CancelToken): void {
    this.#held.set(job.id, { job, cancel, until: this.leaseUntil(job) });
  }

  /**
   * The latest local time the job's lease can end, as far as this worker knows: from its last
   * extension while held, else from its claim. The server's deadline is no earlier.
   */
  leaseUntil(job: ClaimedJob<unknown>): number {
    return this.#held.get(job.id)?.until ?? claimDeadline(job) ?? Number.POSITIVE_INFINITY;
  }

  /**
   * True while more than half the job's lease is left: a job that arrives later than that (a claim
   * reply delayed on the wire) may lapse before the next beat extends it, or has already been
   * reaped and leased to someone else, so no handler should start on it.
   */
  fresh(job: ClaimedJob<unknown>): boolean {
    return localNow() < this.leaseUntil(job) - this.#leaseMs / 2;
  }

  /**
   * Stops tracking a settled job; writes nothing. A settlement that landed deleted the marker in
   * its own script; after a lost lease the marker belongs to the new holder and must stay.
   */
  untrack(job: ClaimedJob<unknown>): void {
    this.#held.delete(job.id);
  }

  /** Cancels every held job's token (on a close that ran out of patience). */
  cancelAll(reason: string): void {
    for (const { cancel } of this.#held.values()) cancel.cancel(reason);
  }

  /**
   * One heartbeat: extend every held lease and refresh its marker in one script, and fire the tokens
   * of jobs we lost; `onBeat` goes out beside it.
   */
  async beat(): Promise<void> {
    const also = this.#onBeat?.();
    // Without extension (BullMQ's skipLockRenewal) the beat only carries the registry entry: a
    // job that outlives its lease is left to lapse and to be recovered as stalled.
    if (this.#held.size === 0 || !this.#extend) return also;
    const held = [...this.#held.values()];
    try {
      const marker = this.#markers ? this.#markerTtlMs : undefined;
      const until = localNow() + this.#leaseMs;
      const missed = new Set(await this.#leases.extendLocks(held.map((h) => h.job), this.#leaseMs, marker));
      for (const h of held) {
        if (missed.has(h.job.id)) h.cancel.cancel('lease lost');
        else h.until = until;
      }
    } catch (error) {
      this.#onError(error);
    }
    await also;
  }

  /** Stops the heartbeat. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
