import type { JobId } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';
import type { Leases } from '../lease/leases.js';
import type { Maintenance } from '../lease/maintenance.js';
import { JobStalledError } from './errors.js';
import type { WorkerEmitter } from './events.js';
import { jobsStalled } from './job-hooks.js';

/** How far past the local now a lease may end and still be read before a stalled sweep, in ms. */
const LAPSING_MARGIN_MS = 1000;

/**
 * What a worker's listeners hear of its pump's stalled sweeps: the `emq.job.stalled` hooks and a
 * `stalled` event for each job a sweep recovered or dead-lettered, and a `failed` event for each
 * death, with the job as read just before the sweep.
 */
export class StalledReports<T> {
  readonly #maintenance: Maintenance;
  readonly #leases: Leases<T>;
  readonly #events: WorkerEmitter<T>;
  readonly #onError: (error: unknown) => void;
  /** Jobs read before the last stalled sweep, by id (see {@link beforeSweep}). */
  #lapsing = new Map<string, ClaimedJob<T>>();

  constructor(maintenance: Maintenance, leases: Leases<T>, events: WorkerEmitter<T>, onError: (error: unknown) => void) {
    this.#maintenance = maintenance;
    this.#leases = leases;
    this.#events = events;
    this.#onError = onError;
  }

  /**
   * Reads, before a stalled sweep, the jobs whose leases are about to lapse (only when someone
   * listens for `failed`): a job the sweep dead-letters may leave no row behind (a queue that keeps
   * no dead jobs), and its `failed` event still needs the job.
   */
  async beforeSweep(): Promise<void> {
    this.#lapsing = new Map();
    if (this.#events.listenerCount('failed') === 0) return;
    try {
      // Lease deadlines are server times: the margin covers the sweep's round trip and a small skew.
      const ids = await this.#maintenance.lapsingBy(Date.now() + LAPSING_MARGIN_MS);
      const jobs = await Promise.all(ids.map((id) => this.#leases.readAsClaimed(id)));
      for (const job of jobs) if (job !== undefined) this.#lapsing.set(job.id, job);
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Reports what a stalled sweep did: the jobs it recovered and the ones it dead-lettered. */
  swept(recovered: readonly string[], dead: readonly string[]): void {
    jobsStalled(this.#maintenance.queue, recovered, dead);
    // The sweep script published `stalled` for each, in the same step as the verdict.
    for (const id of recovered) {
      this.#events.fire('stalled', { id: id as JobId, outcome: 'recovered' });
    }
    for (const id of dead) {
      this.#events.fire('stalled', { id: id as JobId, outcome: 'dead' });
    }
    // A death by stalling is a failure: this worker's `failed` listeners hear it, with the job as
    // its row holds it (read only when someone listens).
    if (dead.length > 0 && this.#events.listenerCount('failed') > 0) this.#reportDeaths(dead);
  }

  /**
   * Fires `failed` (outcome dead, {@link JobStalledError}) once for each job the stalled sweep
   * dead-lettered, with the job as read just before the sweep (or from its row, when it was not read then).
   */
  #reportDeaths(dead: readonly string[]): void {
    for (const id of dead) {
      const before = this.#lapsing.get(id);
      const job = before === undefined ? this.#leases.readAsClaimed(id as JobId) : Promise.resolve(before);
      job.then(
        (found) => {
          if (found !== undefined) this.#events.fire('failed', { job: found, error: new JobStalledError(id), outcome: 'dead' });
        },
        (error: unknown) => this.#onError(error),
      );
    }
    this.#lapsing = new Map();
  }
}
