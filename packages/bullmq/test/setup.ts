import { uniqueName, useRedis } from '@echo/testkit';
import { afterEach } from 'vitest';

/** BullMQ's `connection` for the shared test server: `{ host, port }`, as a BullMQ app writes it. */
export async function redisConnection(): Promise<{ host: string; port: number }> {
  const { host, port } = await useRedis();
  return { host, port };
}

/** A queue name of its own for each test. */
export function queueName(prefix = 'bq'): string {
  return uniqueName(prefix);
}

const open: { close(): Promise<void> }[] = [];

/** Closes `thing` after the test, so a failing assertion leaks no connection. */
export function closing<T extends { close(): Promise<void> }>(thing: T): T {
  open.push(thing);
  return thing;
}

afterEach(async () => {
  const all = open.splice(0);
  await Promise.all(all.map((thing) => thing.close().catch(() => undefined)));
});

/** Resolves with the arguments of the next `event` that `emitter` emits. */
export function nextEvent<A extends unknown[]>(emitter: { once(event: string, listener: (...args: never[]) => void): unknown }, event: string, timeoutMs = 10_000): Promise<A> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${String(timeoutMs)} ms`)), timeoutMs);
    emitter.once(event, ((...args: A) => {
      clearTimeout(timer);
      resolve(args);
    }) as unknown as (...args: never[]) => void);
  });
}
