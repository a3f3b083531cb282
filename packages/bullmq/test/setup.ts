import { uniqueName, useRedis } from '@echo/testkit';

/** BullMQ's `connection` for the shared test server: `{ host, port }`, as a BullMQ app writes it. */
export async function redisConnection(): Promise<{ host: string; port: number }> {
  const { host, port } = await useRedis();
  return { host, port };
}

/** A queue name of its own for each test. */
export function queueName(prefix = 'bq'): string {
  return uniqueName(prefix);
}
