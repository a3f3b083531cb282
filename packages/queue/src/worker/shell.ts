import type { Listener } from '@echo/protocol/queue';
import type { WorkerEvents } from './events.js';
import type { PauseGate } from './pause-gate.js';
import type { WorkerRuntime, WorkerStats } from './runtime.js';

/** A worker kind's runtime, pause gate and slot loop, as its shell's constructor takes them. */
interface ShellParts {
  readonly rt: WorkerRuntime<unknown>;
  readonly gate: PauseGate;
  readonly slot: () => Promise<void>;
}

// Parts by token: the shell's constructor takes an opaque object, so neither the runtime nor the
// gate appears in the package's public types (they are internals `Worker` and `BatchWorker` build).
const partsByToken = new WeakMap<object, ShellParts>();

/** Wraps a worker kind's parts into the token its shell's constructor takes. */
export function shellParts<T>(rt: WorkerRuntime<T>, gate: PauseGate, slot: () => Promise<void>): object {
  const token = {};
  partsByToken.set(token, { rt, gate, slot });
  return token;
}

/**
 * What every kind of worker offers its user: start claiming, pause and resume, listen, read its
 * counters, close. `Worker` and `BatchWorker` are this shell around their own slot loop.
 */
export class WorkerShell<T> {
  /** The name of the queue this worker leases from. */
  readonly queue: string;
  readonly #rt: WorkerRuntime<T>;
  readonly #gate: PauseGate;
  readonly #slot: () => Promise<void>;
  #started = false;

  /** @internal Built by `Worker.start` and `BatchWorker.start`. */
  protected constructor(parts: object) {
    const built = partsByToken.get(parts);
    if (built === undefined) throw new TypeError('a worker is built by Worker.start or BatchWorker.start');
    this.#rt = built.rt as WorkerRuntime<T>;
    this.#gate = built.gate;
    this.#slot = built.slot;
    this.queue = built.rt.queue;
  }

  /**
   * Starts claiming, for a worker started with `autorun: false` (listeners attached first, say).
   * Idempotent; a closed worker stays closed. A worker paused before it runs claims nothing until
   * {@link resume}.
   */
  run(): void {
    this.#begin();
  }

  /**
   * @internal The last step of `start`: lists the worker in the queue's registry (so
   * `queue.getWorkers()` shows it from the moment `start` resolves, claiming or not), then begins
   * claiming unless `autorun` is false.
   */
  protected static async boot<W extends WorkerShell<unknown>>(worker: W, autorun: boolean | undefined): Promise<W> {
    await worker.#rt.announce();
    if (autorun !== false) worker.#begin();
    return worker;
  }

  #begin(): void {
    if (this.#started || !this.#rt.isRunning()) return;
    this.#started = true;
    this.#rt.start(this.#slot);
  }

  /**
   * Stops this worker claiming (other workers go on), from its next claim on, including its first,
   * and starting handlers: jobs it claimed ahead of its handlers (and claims that land after the
   * pause) are given back at once for other workers to take. Running handlers finish and settle as
   * usual, their leases still extended. Idempotent.
   */
  pause(): void {
    this.#gate.pause();
    this.#rt.releaseAhead();
  }

  /** Lets a paused worker claim again. */
  resume(): void {
    if (!this.#gate.paused) return;
    this.#gate.resume();
    // Slots that met the pause parked without claiming: wake one, and the relay passes it on.
    this.#rt.idle.wakeOne();
  }

  /** True between {@link pause} and {@link resume}. */
  get isPaused(): boolean {
    return this.#gate.paused;
  }

  /** Listens to one of this worker's events ({@link WorkerEvents}); answers a remover. */
  on<K extends keyof WorkerEvents<T>>(event: K, listener: Listener<WorkerEvents<T>[K]>): () => void {
    return this.#rt.events.on(event, listener);
  }

  /** Like {@link on}, for the next event only. */
  once<K extends keyof WorkerEvents<T>>(event: K, listener: Listener<WorkerEvents<T>[K]>): () => void {
    return this.#rt.events.once(event, listener);
  }

  /** Removes a listener; answers whether it was there. */
  off<K extends keyof WorkerEvents<T>>(event: K, listener: Listener<WorkerEvents<T>[K]>): boolean {
    return this.#rt.events.off(event, listener);
  }

  /** A snapshot of this worker's counters. */
  stats(): Readonly<WorkerStats> {
    return { ...this.#rt.stats };
  }

  /**
   * The error that stopped this worker by itself (the store's fence changed to another major, auth
   * was refused, the user lacks ACL rights on the queue (`PermissionError`), or the queue's
   * connection was closed); `undefined` while healthy.
   */
  get fatalError(): Error | undefined {
    return this.#rt.fatalError;
  }

  /** True once {@link close} began, or once the worker stopped itself (see {@link fatalError}). */
  get closed(): boolean {
    return !this.#rt.isRunning();
  }

  /** Jobs currently held here (running, or members of running batches). */
  get running(): number {
    return this.#rt.locks.size;
  }

  /**
   * Stops claiming and starts no handler from now on: jobs claimed ahead of a handler are given
   * back at once for other workers to take. Lets running handlers finish (up to `closeTimeoutMs`,
   * then fires their cancel tokens), and closes the wake connection. Idempotent; the queue's
   * connection stays open. Resolves within `closeTimeoutMs` plus 6 s whatever the link does: its
   * last calls (give-backs, leaving the registry) get 5 s, and a link that answers none of them
   * (held, half-open, no primary) leaves those jobs to lapse and the registry entry to expire.
   *
   * [TS] With `force`, running handlers are not waited for and their leases are no longer renewed:
   * they lapse, and the stalled sweep hands those jobs to another worker (BullMQ's `close(true)`).
   */
  close(options: { readonly force?: boolean } = {}): Promise<void> {
    return this.#rt.close(options.force === true);
  }
}
