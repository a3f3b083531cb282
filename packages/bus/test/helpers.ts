import { Connection, queueKeys } from '@echo/protocol/bus';
import { useRedis, waitFor } from '@echo/testkit';

/** A fenced connection to the shared test server. */
export async function connect(): Promise<Connection> {
  return Connection.connect({ url: (await useRedis()).url });
}

/** Resolves once `check` holds, polling every 10 ms; rejects after `timeoutMs`. */
export function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  return waitFor(check, { timeoutMs });
}

/** The conformance harness purge: every key of the queue, in one DEL. */
export async function purge(conn: Connection, queue: string): Promise<void> {
  const keys = (await conn.command('KEYS', `${queueKeys(queue).base}*`)) as string[];
  if (keys.length > 0) await conn.command('DEL', ...keys);
}

export { sleep } from '@echo/testkit';
