import type { ClaimedJob } from '../core/job.js';
import { CancelToken } from './cancel.js';
import type { LockPlane } from './lock-plane.js';

/**
 * Prefetch pays while a handler takes at most this many round trips: the slots then spend a large
 * share of their time waiting on the wire, which a job claimed ahead hides. With longer handlers
 * the round trip is noise and a job claimed ahead only sits here, out of other workers' reach.
 */
const PAYS_WITHIN_ROUND_TRIPS = 10;
/**
 * Nor past this mean handler time, however slow the wire: a job claimed ahead waits a whole handler
 * run out of other workers' reach, and against such handlers the round trip is a small share.
 */
const PAYS_UNDER_HANDLER_MS = 25;
/** Weight of the newest sample in the running means of handler and round-trip times. */
const EWMA_WEIGHT = 0.1;

/**
 * The jobs a worker claimed ahead of its slots, one per slot at most, so a slot whose handler
 * finished starts its next job at once while the round that settles the last one (and claims the
 * next spare) is on the wire: the worker keeps more than one round in flight and never waits on a
 * round trip with free slots. Spares are leased to this worker like any claimed job: the lock plane
 * extends their leases while they wait, and a slot checks their freshness before running one. A
 * paused or closing worker starts no handler: its spares are given back ({@link takeAll}), and it
 * claims nothing, ahead or not.
 */
export class Prefetch<T> {
  readonly #locks: LockPlane;
  /** The worker's slot count now (it may change while the worker runs). */
  readonly #slots: () => number;
  readonly #spares: ClaimedJob<T>[] = [];
  /** Jobs asked for ahead in rounds not answered yet. */
  #asked = 0;
  #handlerMs = 0;
  #roundMs = 0;

  constructor(locks: LockPlane, slots: () => number) {
    this.#locks = locks;
    this.#slots = slots;
  }

  /** How many spares are held. */
  get held(): number {
    return this.#spares.length;
  }

  /** The oldest spare, or `undefined`. */
  take(): ClaimedJob<T> | undefined {
    return this.#spares.shift();
  }

  /** Every spare, oldest first, leaving none (to give them back). */
  takeAll(): ClaimedJob<T>[] {
    return this.#spares.splice(0);
  }

  /**
   * How many jobs a round should claim ahead, once `serving` spares are handed to waiting slots:
   * enough to hold one spare per slot with what is already asked for, none when it does not pay.
   */
  wanted(serving: number): number {
    if (!aheadPays(this.#handlerMs, this.#roundMs)) return 0;
    return Math.max(0, this.#slots() - (this.#spares.length - serving) - this.#asked);
  }

  /** A round leaves asking for `n` jobs ahead. */
  asked(n: number): void {
    this.#asked += n;
  }

  /** The round that asked for `n` ahead answered after `ms`, with `jobs` beyond its slots' wants. */
  answered(n: number, ms: number, jobs: readonly ClaimedJob<T>[]): void {
    this.#asked -= n;
    this.#roundMs = mean(this.#roundMs, ms);
    for (const job of jobs) this.adopt(job);
  }

  /** Holds a job claimed outside the rounds (behind the wake read) as a spare: leased to us, lock tracked. */
  adopt(job: ClaimedJob<T>): void {
    this.#locks.track(job, new CancelToken());
    this.#spares.push(job);
  }

  /** A handler ran for `ms`. */
  ran(ms: number): void {
    this.#handlerMs = mean(this.#handlerMs, ms);
  }
}

/**
 * Does claiming ahead pay, given the mean handler time and the mean round trip (ms; 0 while
 * unknown)? Yes for short handlers: within {@link PAYS_UNDER_HANDLER_MS} and
 * {@link PAYS_WITHIN_ROUND_TRIPS} round trips.
 */
export function aheadPays(handlerMs: number, roundMs: number): boolean {
  if (handlerMs > PAYS_UNDER_HANDLER_MS) return false;
  return roundMs === 0 || handlerMs <= PAYS_WITHIN_ROUND_TRIPS * roundMs;
}

/** A running mean that follows its newest samples (`current` 0: no sample yet). */
export function mean(current: number, sample: number): number {
  return current === 0 ? sample : current + EWMA_WEIGHT * (sample - current);
}
