import { rmSync } from 'node:fs';
import { constants } from 'node:os';
import { isMainThread } from 'node:worker_threads';

/** Something the testkit started that must not outlive the process: a server and its temp dir. */
export interface Disposable {
  /** Graceful, asynchronous teardown; used by {@link stopAll}. */
  stop(): Promise<void>;
  /**
   * Last-chance teardown from inside `process.on('exit')`, where nothing asynchronous runs:
   * SIGKILL the child and remove the temp dir without waiting.
   */
  disposeSync(): void;
}

interface RegistryState {
  readonly live: Set<Disposable>;
  hooksInstalled: boolean;
}

/**
 * The registry lives on `globalThis` under a registered symbol so that a second copy of this
 * module (vitest re-evaluating modules per file, or `src` and `dist` both loaded) shares one set of
 * children and installs the process hooks once, instead of each copy tracking half the servers.
 */
const STATE_KEY: unique symbol = Symbol.for('@echo/testkit/registry@1');

function state(): RegistryState {
  const holder = globalThis as typeof globalThis & { [STATE_KEY]?: RegistryState };
  const existing = holder[STATE_KEY];
  if (existing !== undefined) return existing;
  const created: RegistryState = { live: new Set(), hooksInstalled: false };
  holder[STATE_KEY] = created;
  return created;
}

const HANGUP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function disposeAllSync(): void {
  const { live } = state();
  for (const item of [...live]) {
    try {
      item.disposeSync();
    } catch {
      // Exit-time cleanup is best effort: one stubborn entry must not keep the others alive.
    }
    live.delete(item);
  }
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener means the host program owns this signal (graceful shutdown, a REPL, a test
  // runner). Killing the servers now could break its shutdown, and re-raising would override its
  // choice to keep running; the 'exit' hook still cleans up when it does exit.
  if (process.listenerCount(signal) > 1) return;
  disposeAllSync();
  for (const s of HANGUP_SIGNALS) process.removeListener(s, onSignal);
  // With our listener gone the default action applies again, so re-raising terminates the process
  // "by signal" exactly as it would have without the testkit (a shell reports 128 + signo).
  process.kill(process.pid, signal);
  // Only reached if delivery is deferred or the signal is ignored at the OS level.
  process.exit(128 + ((constants.signals[signal] as number | undefined) ?? 1));
}

function installHooks(): void {
  const s = state();
  if (s.hooksInstalled) return;
  s.hooksInstalled = true;
  // 'exit' covers normal completion, process.exit() and uncaught exceptions. It cannot cover
  // SIGKILL of this process: nothing can, so servers started by a process that is SIGKILLed are
  // orphaned until someone kills it.
  process.on('exit', disposeAllSync);
  // Signals are only delivered to the main thread; worker threads cannot listen for them.
  if (isMainThread) {
    for (const signal of HANGUP_SIGNALS) process.on(signal, onSignal);
  }
}

/** Starts tracking `item` so it is torn down when the process exits. Installs the hooks once. */
export function track(item: Disposable): void {
  installHooks();
  state().live.add(item);
}

/** Stops tracking `item`, after it has been torn down by its owner. */
export function untrack(item: Disposable): void {
  state().live.delete(item);
}

/** How many servers are currently tracked (each cluster node counts); for tests and diagnostics. */
export function liveCount(): number {
  return state().live.size;
}

/**
 * Gracefully stops every server (cluster nodes included) this process started and removes their temp dirs.
 * Useful in a global teardown; the exit hooks make it unnecessary for correctness.
 */
export async function stopAll(): Promise<void> {
  const items = [...state().live];
  const results = await Promise.allSettled(items.map((item) => item.stop()));
  for (const item of items) untrack(item);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}

/** Best-effort synchronous removal of a temp dir; used at exit, where nothing can be awaited. */
export function removeDirSync(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A server SIGKILLed a moment ago may still be closing files; leaving a dir in /tmp beats
    // throwing from an exit hook.
  }
}
