import type { ClaimedJob } from '../core/job.js';
import { CancelToken } from './cancel.js';
import type { WorkerRuntime } from './runtime.js';

interface Spare<T> {
  readonly job: ClaimedJob<T>;
  readonly cancel: CancelToken;
}

/**
 * A worker's lane claims (`source: 'lanes'`). Each claim is a weighted one (queue.md §5.5): the
 * lane that comes up serves as many jobs as its weight, so weights 3:1 give 3:1 shares, and an
 * unweighted lane serves one, as a plain rotation would. A slot runs one job; the others wait
 * here as spares for the next slot that asks, their leases extended by the lock plane meanwhile
 * (a spare whose lease was lost anyway is dropped, not run).
 */
export class LaneFeed<T> {
  readonly #rt: WorkerRuntime<T>;
  readonly #spares: Spare<T>[] = [];

  constructor(rt: WorkerRuntime<T>) {
    this.#rt = rt;
  }

  /** A spare job, or a fresh weighted claim's first; `undefined` when no lane had work. */
  async next(): Promise<ClaimedJob<T> | undefined> {
    const spare = this.spare();
    if (spare) return spare;
    const rt = this.#rt;
    const [first, ...rest] = await rt.leases.laneWeightedClaim(rt.options.leaseMs, rt.locks.claimOptions);
    for (const job of rest) {
      const cancel = new CancelToken();
      rt.locks.track(job, cancel);
      this.#spares.push({ job, cancel });
    }
    // Let a parked slot take a spare now rather than on the next wake.
    if (rest.length > 0) rt.idle.wakeOne();
    return first;
  }

  /** How many spares wait here. */
  get held(): number {
    return this.#spares.length;
  }

  /** Every spare still leased to this worker, leaving none (to give them back on pause or close). */
  takeAll(): ClaimedJob<T>[] {
    const out: ClaimedJob<T>[] = [];
    for (let job = this.spare(); job; job = this.spare()) out.push(job);
    return out;
  }

  /** A spare job still leased to this worker, if any. */
  spare(): ClaimedJob<T> | undefined {
    for (let s = this.#spares.shift(); s; s = this.#spares.shift()) {
      if (!s.cancel.check().cancelled) return s.job;
      this.#rt.locks.untrack(s.job);
    }
    return undefined;
  }
}
