import { AuthError, ConnectionClosedError, PermissionError, StaleError, VersionFenceError } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';
import { WorkerEmitter } from './events.js';
import { DueClock } from './due-clock.js';
import { GiveBacks } from './give-back.js';
import { IdleSlots } from './idle.js';
import { LockPlane } from './lock-plane.js';
import { OutageFunnel } from './outage.js';
import { Presence } from './presence.js';
import { Pump } from './pump.js';
import type { Leases } from '../lease/leases.js';
import type { WakeChannel } from '../lease/options.js';
import type { Maintenance } from '../lease/maintenance.js';
import type { ResolvedWorkerOptions } from './worker-options.js';
import { SlotPool } from './slot-pool.js';
import { StalledReports } from './stalled-reports.js';

/** Counters a worker keeps about its own work. */
export interface WorkerStats {
  completed: number;
  retried: number;
  dead: number;
  delayed: number;
  /** Settlements refused because the lease was lost (reaped and re-claimed, or removed). */
  lost: number;
}

/**
 * What a worker reads from the queue it is started on: its two handles, never the queue itself.
 * A `Queue` is one.
 */
export interface LeaseSource<T> {
  /** The queue's lease handle: claims, settlements, lock extension. */
  leases(): Leases<T>;
  /** The queue's maintenance handle: promote, reap, repeats, outbox, registry. */
  maintenance(): Maintenance;
}

/**
 * What every kind of worker shares: the wake connection and its single blocking read, the idle
 * slots, the lock plane, the pump and an orderly shutdown. A worker only brings its slot loop.
 */
export class WorkerRuntime<T> {
  /** The queue's name. */
  readonly queue: string;
  readonly leases: Leases<T>;
  readonly maintenance: Maintenance;
  readonly options: ResolvedWorkerOptions;
  readonly idle = new IdleSlots();
  readonly locks: LockPlane;
  /** Wakes the worker when the schedule's head falls due. */
  readonly due: DueClock;
  readonly stats: WorkerStats = { completed: 0, retried: 0, dead: 0, delayed: 0, lost: 0 };
  /** The worker's typed events; a listener that throws is reported to `onError`. */
  readonly events: WorkerEmitter<T>;
  readonly #wake: WakeChannel<T>;
  /** Where a job claimed behind the wake read goes (see {@link claimOnWake}). */
  #wakeTaker: WakeTaker<T> | undefined;
  readonly #pump: Pump;
  /** This worker's entry in the queue's registry, beaten by the lock plane. */
  readonly presence: Presence;
  /** Jobs claimed that will not run here (paused or closing), on their way back to the queue. */
  readonly giveBacks: GiveBacks;
  /** What the slot loops call to give back, at once, every job they hold ahead of a handler. */
  readonly #releasers: (() => void)[] = [];
  readonly #outages: OutageFunnel;
  readonly #slots: SlotPool;
  #parker: Promise<void> | undefined;
  #running = true;
  #closing: Promise<void> | undefined;
  #fatal: Error | undefined;
  readonly #closingSignal: { promise: Promise<void>; resolve: () => void } = (() => {
    let resolve: () => void = () => undefined;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  })();

  constructor(source: LeaseSource<T>, options: ResolvedWorkerOptions, wake: WakeChannel<T>, kind: 'worker' | 'batch' = 'worker') {
    const maintenance = source.maintenance();
    this.leases = source.leases();
    this.maintenance = maintenance;
    this.queue = maintenance.queue;
    // Every error the worker reports passes the funnel: one report per outage, not one per call.
    const report = options.onError;
    this.events = new WorkerEmitter<T>((error) => report(error));
    this.#outages = new OutageFunnel(
      (error, job) => {
        report(error, job);
        this.events.fire('error', { error, job });
      },
      () => maintenance.probe(),
    );
    this.options = { ...options, onError: this.#outages.onError };
    this.#slots = new SlotPool(options.concurrency);
    this.#wake = wake;
    const onError = (error: unknown): void => this.options.onError(error);
    this.due = new DueClock(maintenance, onError);
    this.presence = new Presence(maintenance, {
      name: options.name,
      kind,
      concurrency: () => this.#slots.wanted,
      beatMs: options.extendEveryMs,
      active: () => this.locks.size,
    });
    this.locks = new LockPlane(this.leases, {
      leaseMs: options.leaseMs,
      extendEveryMs: options.extendEveryMs,
      markers: options.lockMarkers,
      extend: options.extendLeases,
      onError,
      onBeat: () => this.announce(),
    });
    // A worker stopped by a fatal error cannot reach the server: its give-backs fail quietly and the
    // jobs' leases lapse instead.
    this.giveBacks = new GiveBacks(this.leases, this.locks, (error) => {
      if (!this.#fatal) onError(error);
    });
    const stalled = new StalledReports(maintenance, this.leases, this.events, onError);
    this.#pump = new Pump(maintenance, {
      stalled: options.stalled,
      recover: options.recoverLeases,
      onError,
      onNextDue: (inMs) => this.due.expect(inMs),
      onStalled: (recovered, dead) => stalled.swept(recovered, dead),
      beforeSweep: () => stalled.beforeSweep(),
    });
  }

  /** [TS] A job settled for a parent in another queue: see {@link Pump.deliverSoon}. */
  deliverSoon(): void {
    this.#pump.deliverSoon();
  }

  /** Starts the pump, {@link concurrency} slot loops and the one blocking read that wakes them. */
  start(slot: () => Promise<void>): void {
    if (this.options.maintenanceMs > 0) this.#pump.start(this.options.maintenanceMs);
    this.due.expect(0);
    this.#slots.start(slot);
    this.#parker = this.#park();
  }

  /** How many slot loops the worker runs now. */
  get concurrency(): number {
    return this.#slots.wanted;
  }

  /**
   * Changes how many slot loops run: more start at once; when fewer are wanted, slots end as they
   * finish their jobs (see {@link retire}), so no running job is cut short.
   */
  setConcurrency(count: number): void {
    this.#slots.resize(count, this.isRunning());
  }

  /** True while more slot loops run than are wanted: a slot between jobs takes no new one. */
  surplus(): boolean {
    return this.#slots.surplus();
  }

  /** A slot between jobs asks whether to end: true (and it is counted out) while slots are surplus. */
  retire(): boolean {
    return this.#slots.retire();
  }

  /**
   * Writes this worker's registry entry now (the lock plane repeats it on every beat). Never
   * rejects: a refusal that will not heal (an ACL without rights on the queue) stops the worker as
   * a slot's would, anything else is reported and the next beat tries again.
   */
  async announce(): Promise<void> {
    if (!this.isRunning()) return;
    try {
      await this.presence.beat();
    } catch (error) {
      if (this.isRunning()) this.report(error);
    }
  }

  /**
   * Gives up a job whose claim reply came too late to start a handler on it (see
   * `LockPlane.fresh`): it is not run here, and it is handed back at once, fenced by its token, so
   * another claim takes it now instead of after its lease lapses (when the lease was already handed
   * on, the give-back leaves the job alone). Counted as lost and reported with the job.
   */
  giveUp(job: ClaimedJob<T>): void {
    this.stats.lost++;
    this.options.onError(new StaleError('the claim reply came after half the lease had run out; the job was given up and handed back, not run'), job);
    this.giveBacks.add([job]);
  }

  /**
   * Lets the wake read carry a claim (see `WakeChannel.nextThenClaim`): the slot loop that registers
   * takes the job claimed as the wait ends, and the slot woken runs it with no claim of its own, so
   * an idle worker starts a job one hop after its admission. Only when a whole wait leaves most of
   * the lease: the lease is counted from the wait's send, and a job whose lease looks half gone is
   * given up rather than run.
   */
  claimOnWake(taker: WakeTaker<T>): void {
    if (this.options.blockMs * WAKE_CLAIM_LEASE_SHARE <= this.options.leaseMs) this.#wakeTaker = taker;
  }

  /** Registers what a slot loop calls to give back what it holds ahead of its handlers. */
  onRelease(release: () => void): void {
    this.#releasers.push(release);
  }

  /**
   * Gives back, at once, every job claimed and not started (spares, batches carried ahead): on
   * pause and on close, when no new handler may start here.
   */
  releaseAhead(): void {
    for (const release of this.#releasers) release();
  }

  /** Resolves once `close()` began (or the worker stopped itself). */
  whenClosing(): Promise<void> {
    return this.#closingSignal.promise;
  }

  /** False once `close()` began. Read through a method so a check after an await is not narrowed away. */
  isRunning(): boolean {
    return this.#running;
  }

  /** The error that stopped this worker for good (a fence, auth or closed connection), if any. */
  get fatalError(): Error | undefined {
    return this.#fatal;
  }

  /**
   * Reports an error a slot or the wake read met. A fence refusal, an auth failure, an ACL refusal
   * (the user lacks rights on this queue's keys or scripts) or a closed connection will not heal by
   * retrying, so the worker stops itself instead of spinning; anything else is reported and
   * survived. Answers whether the caller should stop.
   */
  report(error: unknown): boolean {
    const fatal = error instanceof VersionFenceError || error instanceof AuthError || error instanceof PermissionError || error instanceof ConnectionClosedError;
    if (fatal) {
      if (this.#running && !this.#fatal) {
        this.#fatal = error;
        this.options.onError(error);
        void this.close();
      }
      return true;
    }
    this.options.onError(error);
    return false;
  }

  /** The one blocking read: wakes one parked slot per token or per beat. */
  async #park(): Promise<void> {
    while (this.#running) {
      await this.idle.whenSomeoneWaits();
      if (!this.isRunning()) return;
      try {
        const { token, claimed } = await this.#wait();
        // A due hint names no claimable job: it arms the due clock, and the slot stays parked
        // unless the claim behind the wait brought one.
        if (token !== null && this.due.hint(token) && !claimed) continue;
      } catch (error) {
        if (!this.isRunning() || this.report(error)) return;
        await sleep(Math.min(this.options.blockMs, 250));
      }
      this.idle.wakeOne();
    }
  }

  /** One wait on the wake list, with a claim behind it when a slot loop takes one and may start it now. */
  async #wait(): Promise<{ token: string | null; claimed: boolean }> {
    const taker = this.#wakeTaker;
    if (!taker?.open()) return { token: await this.#wake.next(this.options.blockMs), claimed: false };
    const { token, job } = await this.#wake.nextThenClaim(this.options.blockMs, this.options.leaseMs, this.locks.claimOptions);
    if (job !== undefined) taker.adopt(job);
    return { token, claimed: job !== undefined };
  }

  /**
   * Stops claiming and starts no handler from now on: jobs claimed ahead of a handler are given back
   * at once for other workers to take. Lets running handlers finish (up to `closeTimeoutMs`, then
   * fires their cancel tokens and stops waiting; their leases lapse and the reaper hands them on),
   * and closes the wake connection. Idempotent. The queue's own connection stays open. With
   * `force` [TS], running handlers are not waited for and their leases stop being renewed at once.
   *
   * Bounded whatever the link does: it resolves within `closeTimeoutMs` plus
   * {@link CLOSE_SETTLE_MS} plus {@link CLOSE_SERVER_MS}. What it still has to say to the server
   * (the give-backs, leaving the registry, a pump tick or due wake-up under way) is waited for up
   * to {@link CLOSE_SERVER_MS}; a link that answers nothing in that time (held, half-open, a
   * primary gone for good) leaves those jobs to lapse and the registry entry to expire, as a worker
   * that died would.
   */
  close(force = false): Promise<void> {
    this.#closing ??= this.#shutdown(force);
    return this.#closing;
  }

  async #shutdown(force: boolean): Promise<void> {
    this.#running = false;
    // No handler starts from now on: what is held ahead goes back for other workers to take.
    this.releaseAhead();
    // A closing worker promotes, recovers and fires nothing more: its queue's state stays as the
    // caller left it (it only delivers the flow signals its own settlements left, below). The pump's
    // timer and the due clock stop now; a tick or wake-up already under way talks to the server, so
    // it is awaited with the rest of that talk, under its bound, below.
    const pumpStopped = this.#pump.stop();
    const dueStopped = this.due.stop();
    this.#closingSignal.resolve();
    this.idle.releaseAll();
    await this.#wake.close();
    if (force) {
      // A forced close leaves running handlers to their lapsing leases: no wait, no renewal.
      this.locks.stop();
    } else {
      const drained = this.#slots.ended().then(() => true);
      const patience = sleep(this.options.closeTimeoutMs).then(() => false);
      if (!(await Promise.race([drained, patience]))) this.locks.cancelAll('worker closing');
      await Promise.race([drained, sleep(CLOSE_SETTLE_MS)]);
    }
    // Claims that landed while the slots stopped were handed back: let those calls finish first. A
    // clean close then leaves the registry at once; a worker stopped by a fatal error cannot reach
    // the server, and its entry lapses instead.
    const talked = (async () => {
      // A claim that rode on the wake read and landed as it closed is handed back before we wait for the give-backs.
      await this.#parker;
      await this.giveBacks.settled();
      this.locks.stop();
      if (!this.#fatal) await this.presence.leave().catch((error: unknown) => this.options.onError(error));
      await Promise.all([pumpStopped, dueStopped]);
      // A child completed here whose parent lives in another queue is announced through this
      // queue's outbox; with no worker of this queue left, the parent would wait for the next one.
      if (!this.#fatal && this.options.maintenanceMs > 0) await this.#pump.flushOutbox().catch((error: unknown) => this.options.onError(error));
    })();
    await Promise.race([talked, sleep(CLOSE_SERVER_MS)]);
    // Idempotent: stops the beat even when the give-backs never answered.
    this.locks.stop();
    await this.#parker;
    this.#outages.stop();
    this.events.fire('closed', undefined);
  }
}

/**
 * The wake read carries a claim only when the lease is at least this many wake waits long: a job
 * claimed as a full wait ends then still has most of its lease by the local count (which starts at
 * the wait's send), and is fresh when a slot takes it.
 */
const WAKE_CLAIM_LEASE_SHARE = 4;

/** What takes a job claimed behind the wake read: the slot loop of a worker that claims one job per slot. */
export interface WakeTaker<T> {
  /** True while a handler may start (running, not paused): otherwise the wait carries no claim. */
  open(): boolean;
  /** Holds the job for the slot the wake is about to wake (or gives it back, paused or closing since). */
  adopt(job: ClaimedJob<T>): void;
}

/**
 * How long `close()` waits, after the patience for handlers ran out, for the handlers it cancelled
 * to hand in their verdicts.
 */
export const CLOSE_SETTLE_MS = 1_000;

/**
 * How long `close()` waits for its last calls to the server (give-backs, leaving the registry, a
 * pump tick or due wake-up in flight): room for many round trips on a loaded host; past it the
 * link is taken as answering nothing, and close resolves without them.
 */
export const CLOSE_SERVER_MS = 5_000;

/** A timer that never keeps the process alive on its own. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
