/**
 * What the fault run holds (servers, connections, worker processes) is given back on every way
 * out: the end of the run, a failed check, a thrown error, SIGINT/SIGTERM/SIGHUP, and the loss of
 * the process that started it. The last one matters under `pnpm soak:faults`: pnpm answers SIGTERM
 * by killing its shell and exiting, which leaves this process running, orphaned, with its servers.
 *
 * The testkit's own exit hook still SIGKILLs any server left when the process exits; this gives
 * them a graceful stop first and makes sure the process does exit.
 */

/** How often the parent is looked at: an orphaned run stops within this. */
const PARENT_POLL_MS = 500;

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** A teardown step that runs at most once, whoever calls it first. */
export type Release = () => Promise<void>;

/** Why the run was told to stop from outside: a signal, or its parent process is gone. */
export type StopReason = NodeJS.Signals | 'orphaned';

export interface LifecycleOptions {
  /** How long the graceful teardown may take after a signal before the process exits anyway. */
  readonly graceMs?: number;
  /** Hears why the run stops from outside, before the teardown. */
  readonly onStop?: (reason: StopReason) => void;
  /** Hears a teardown step that failed; the other steps still run. */
  readonly onError?: (error: unknown) => void;
}

/** The exit status for a stop from outside: 128 + the signal's number, as a shell reports it (an orphan as SIGHUP). */
export function exitStatusOf(reason: StopReason): number {
  return 128 + (SIGNAL_NUMBERS[reason === 'orphaned' ? 'SIGHUP' : reason] ?? 1);
}

export class Lifecycle {
  readonly #steps: Release[] = [];
  readonly #options: LifecycleOptions;
  #released: Promise<void> | undefined;
  #unwatch: (() => void) | undefined;

  constructor(options: LifecycleOptions = {}) {
    this.#options = options;
  }

  /**
   * Takes ownership of something to give back: `release` runs once, on {@link releaseAll} (last
   * owned first) or earlier through the answered function, when the run needs an order of its own.
   */
  own(release: () => Promise<void> | void): Release {
    let done: Promise<void> | undefined;
    const once: Release = () => (done ??= Promise.resolve().then(release));
    this.#steps.push(once);
    return once;
  }

  /** Gives back everything owned, last owned first; a failing step is reported and the rest go on. */
  releaseAll(): Promise<void> {
    this.#released ??= (async () => {
      for (const step of [...this.#steps].reverse()) {
        try {
          await step();
        } catch (error) {
          this.#options.onError?.(error);
        }
      }
    })();
    return this.#released;
  }

  /**
   * Stops the run from outside: on SIGINT, SIGTERM or SIGHUP, or once the parent process is gone,
   * everything owned is released (within `graceMs`) and the process exits with 128 + the signal's
   * number. A second signal exits at once. Answers a function that removes the watch.
   */
  watch(): () => void {
    if (this.#unwatch !== undefined) return this.#unwatch;
    const parent = process.ppid;
    let stopping = false;
    const stop = (reason: StopReason): void => {
      const status = exitStatusOf(reason);
      if (stopping) process.exit(status);
      stopping = true;
      // Stops the parent watch too (declared below; a stop never comes before watch() returns).
      clearInterval(poll);
      this.#options.onStop?.(reason);
      const grace = setTimeout(() => process.exit(status), this.#options.graceMs ?? 20_000);
      void this.releaseAll().finally(() => {
        clearTimeout(grace);
        process.exit(status);
      });
    };
    const onSignal = (signal: NodeJS.Signals): void => stop(signal);
    for (const signal of SIGNALS) process.on(signal, onSignal);
    const poll = setInterval(() => {
      if (process.ppid !== parent) stop('orphaned');
    }, PARENT_POLL_MS);
    // The watch alone must not keep a finished run alive.
    poll.unref();
    this.#unwatch = () => {
      clearInterval(poll);
      for (const signal of SIGNALS) process.off(signal, onSignal);
    };
    return this.#unwatch;
  }
}
