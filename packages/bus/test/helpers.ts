import { Connection, queueKeys } from '@echo/protocol';
import { useRedis } from '@echo/testkit';

/** A fenced connection to the shared test server. */
export async function connect(): Promise<Connection> {
  return Connection.connect({ url: (await useRedis()).url });
}

/** Resolves once `check` holds, polling every 10 ms; rejects after `timeoutMs`. */
export function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = async (): Promise<void> => {
      try {
        if (await check()) return resolve();
      } catch (error) {
        return reject(error instanceof Error ? error : new Error(String(error)));
      }
      if (Date.now() - started > timeoutMs) return reject(new Error('condition not met in time'));
      setTimeout(() => void tick(), 10);
    };
    void tick();
  });
}

/** The conformance harness purge: every key of the queue, in one DEL. */
export async function purge(conn: Connection, queue: string): Promise<void> {
  const keys = (await conn.command('KEYS', `${queueKeys(queue).base}*`)) as string[];
  if (keys.length > 0) await conn.command('DEL', ...keys);
}

/** Sleeps `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
