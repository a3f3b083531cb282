import type { Maintenance } from '../lease/maintenance.js';
import type { StalledOptions } from './worker-options.js';

/** What one pump tick did. */
export interface PumpTick {
  readonly promoted: number;
  readonly recovered: number;
  readonly stalledDead: number;
  readonly fired: number;
  /** Cross-queue flow signals delivered from this queue's outbox. */
  readonly delivered: number;
}

/**
 * The periodic sweep a worker runs so nothing needs a separate process (queue.md §10.2, §6): promote
 * due jobs, recover expired leases (plain reap, or the stalled sweep when configured), fire due
 * repeats, deliver the flow outbox. Every step is idempotent over its set, so any number of workers may pump one queue.
 */
export class Pump {
  readonly #maintenance: Maintenance;
  readonly #stalled: StalledOptions | undefined;
  readonly #recover: boolean;
  readonly #onError: (error: unknown) => void;
  readonly #onStalled: ((recovered: readonly string[], dead: readonly string[]) => void) | undefined;
  readonly #onNextDue: ((inMs: number) => void) | undefined;
  readonly #beforeSweep: (() => Promise<void>) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #delivering: Promise<void> | undefined;
  /** Deliveries asked for so far: one asked while a delivery runs makes it go round once more. */
  #asked = 0;

  constructor(
    maintenance: Maintenance,
    options: {
      stalled: StalledOptions | undefined;
      /** Recover expired leases in each tick; false leaves that to other workers. */
      recover: boolean;
      onError: (error: unknown) => void;
      onStalled?: (recovered: readonly string[], dead: readonly string[]) => void;
      /** Told when the schedule's head falls due after a tick, so the worker can wake on time. */
      onNextDue?: (inMs: number) => void;
      /** Runs right before each stalled sweep (never rejects): what the sweep may end can be read first. */
      beforeSweep?: () => Promise<void>;
    },
  ) {
    this.#maintenance = maintenance;
    this.#stalled = options.stalled;
    this.#recover = options.recover;
    this.#onError = options.onError;
    this.#onStalled = options.onStalled;
    this.#onNextDue = options.onNextDue;
    this.#beforeSweep = options.beforeSweep;
  }

  /** Starts ticking every `periodMs`; a tick never overlaps the previous one. */
  start(periodMs: number): void {
    this.#timer = setInterval(() => {
      if (this.#running) return;
      this.#running = this.tick()
        .then(() => undefined, this.#onError)
        .finally(() => (this.#running = undefined));
    }, periodMs);
    this.#timer.unref();
  }

  /** One sweep. Batches of 100, repeated while a batch comes back full. */
  async tick(batch = 100): Promise<PumpTick> {
    let promoted = 0;
    for (let moved = batch; moved === batch; promoted += moved) {
      const step = await this.#maintenance.promoteNext(batch);
      moved = step.moved;
      if (moved < batch && step.nextInMs >= 0) this.#onNextDue?.(step.nextInMs);
    }
    let recovered = 0;
    let stalledDead = 0;
    let delivered = 0;
    if (!this.#recover) {
      // BullMQ's skipStalledCheck: this worker sweeps nothing; others (or queue.maintenance()) do.
    } else if (this.#stalled) {
      await this.#beforeSweep?.();
      const sweep = await this.#maintenance.sweepStalled({ maxStalled: this.#stalled.maxStalled ?? 1, limit: batch });
      recovered = sweep.recovered.length;
      stalledDead = sweep.dead.length;
      // A death's flow signal to a parent in another queue waits in the outbox: delivered before
      // the deaths are reported, so a `failed` listener already sees the parent moved (as a
      // same-queue parent is, in the sweep's own step).
      if (stalledDead > 0) delivered += await this.#deliver(batch);
      if (recovered + stalledDead > 0) this.#onStalled?.(sweep.recovered, sweep.dead);
    } else {
      for (let n = batch; n === batch; recovered += n) n = await this.#maintenance.reap(batch);
    }
    const fired = await this.#maintenance.fireDueRepeats(batch, (_, error) => this.#onError(error));
    delivered += await this.#deliver(batch);
    return { promoted, recovered, stalledDead, fired, delivered };
  }

  /** Delivers up to `batch` of the outbox's flow signals; reports what stopped it; answers how many went. */
  async #deliver(batch: number): Promise<number> {
    const sweep = await this.#maintenance.deliverOutboxClimbing(batch);
    if (sweep.error !== undefined) this.#onError(sweep.error);
    if (sweep.poisoned) this.#onError(new Error(`flow outbox ${this.#maintenance.keys.flowOutbox} holds a malformed entry; remove it to unblock delivery`));
    return sweep.delivered;
  }

  /**
   * The outbox step of a tick alone: delivers this queue's cross-queue flow signals once, so the
   * last settlements of a closing worker reach their parents in other queues without waiting for
   * another worker of this queue to tick.
   */
  async flushOutbox(batch = 100): Promise<void> {
    await this.#deliver(batch);
  }

  /**
   * [TS] A job of this queue settled for a parent in another queue: its signal waits in the outbox,
   * so it is delivered now rather than at the next tick (a parent's release or death is not held
   * back a whole period). Calls while one delivery runs fold into one more after it.
   */
  deliverSoon(): void {
    if (this.#timer === undefined) return;
    this.#asked++;
    if (this.#delivering) return;
    this.#delivering = (async () => {
      for (let seen = -1; seen !== this.#asked && this.#timer !== undefined; ) {
        seen = this.#asked;
        await this.#deliver(100).catch(this.#onError);
      }
    })().finally(() => (this.#delivering = undefined));
  }

  /** Stops ticking and waits for a tick or a delivery in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.all([this.#running, this.#delivering]);
  }
}
