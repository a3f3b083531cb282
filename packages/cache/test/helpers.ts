import { Connection } from '@echo/protocol/cache';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { uniqueName, useRedis, waitFor } from '@echo/testkit';

/** A fenced connection to the shared test server, with the scripts' strict key check on. */
export async function connect(url?: string): Promise<Connection> {
  return Connection.connect({ url: url ?? (await useRedis()).url, strictKeys: true });
}

/** A table name no other test uses, so files share one server without colliding. */
export function tableName(prefix = 'c'): string {
  return uniqueName(prefix);
}

/** Polls `check` every 5 ms until it holds, or fails after `timeoutMs`. */
export function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  return waitFor(check, { timeoutMs, everyMs: 5 });
}

export { sleep } from '@echo/testkit';

/** A manual monotonic clock for expiry tests. */
export function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A full collection, run after the current job ends (a WeakRef keeps its target alive through the job that made it). */
export async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}
