/** The set-up many queue test files share: one connection per file and the queues its tests open. */
import { Connection } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll } from 'vitest';
import { Queue, type QueueOptions } from '../src/index.js';

/**
 * One strict-keys connection for a test file and the queues its tests open on it: after the file,
 * every key of those queues is dropped and the connection closed. Registers the file's hooks, so
 * call it at the top level of the file.
 */
export function queuesPerFile(prefix: string): { readonly connection: () => Connection; readonly open: <T>(options?: Omit<QueueOptions<T>, 'connection'>) => Promise<Queue<T>> } {
  let conn: Connection | undefined;
  const opened: Queue[] = [];
  beforeAll(async () => {
    conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
  }, 60_000);
  afterAll(async () => {
    for (const q of opened) {
      const keys = (await q.connection.command('KEYS', `emq:{${q.name}}:*`)) as string[];
      if (keys.length > 0) await q.connection.command('DEL', ...keys);
    }
    await conn?.close();
  });
  const connection = (): Connection => {
    if (conn === undefined) throw new Error('the file connection opens in beforeAll: call connection() inside a test');
    return conn;
  };
  return {
    connection,
    open: async <T>(options: Omit<QueueOptions<T>, 'connection'> = {}): Promise<Queue<T>> => {
      const q = await Queue.open<T>(uniqueName(prefix), { ...options, connection: connection() });
      opened.push(q);
      return q;
    },
  };
}
