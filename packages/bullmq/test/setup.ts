import { Connection } from '@echo/protocol/queue';
import { startCluster, uniqueName, useRedis, type RedisCluster } from '@echo/testkit';

/** `ECHO_BULLMQ_CLUSTER=1` runs a guide file on a 3-master cluster (`pnpm test:cluster`). */
const ON_CLUSTER = process.env.ECHO_BULLMQ_CLUSTER === '1';
/**
 * One cluster per worker process, shared by the files it runs as `useRedis` shares its server:
 * each test works under its own queue name, and the files that read the keyspace skip on a cluster.
 * The testkit's exit hooks stop it with the process.
 */
let cluster: RedisCluster | undefined;
let shared: Connection | undefined;

/**
 * BullMQ's `connection` for the shared test server: `{ host, port }`, as a BullMQ app writes it;
 * on a cluster, an Echo `Connection` to it (how an app reaches a cluster through this package).
 */
export async function redisConnection(): Promise<{ host: string; port: number }> {
  if (ON_CLUSTER) {
    cluster ??= await startCluster({ masters: 3 });
    shared ??= await Connection.connect({ cluster: cluster.seeds });
    // The guide files spread `connection` as BullMQ's options type; a Connection stands in for it.
    return shared as unknown as { host: string; port: number };
  }
  const { host, port } = await useRedis();
  return { host, port };
}

/** Whether this run is on a cluster (files that read the server's keyspace skip then). */
export const onCluster = ON_CLUSTER;

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

/** Closes what the test just finished handed to {@link closing}; `hooks.ts` runs it after each test of every file. */
export async function closeOpened(): Promise<void> {
  const all = open.splice(0);
  await Promise.all(all.map((thing) => thing.close().catch(() => undefined)));
}

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
