import { useRedis, type RedisTarget } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { Connection, type reads } from './support.js';

/** A raw command as each client shape would hand the reply to a parser. */
export type Send = (name: string, ...args: string[]) => Promise<unknown>;

/** A live server, a Connection to it, and a sender per reply shape a parser must read. */
export interface LiveShapes {
  /** The Connection, once the server is up. */
  conn(): Connection;
  /** `[name, make a sender]` per shape: RESP2, RESP3 under both ioredis mappings, and the Connection. */
  readonly shapes: [string, () => Send][];
}

/** Starts a server for the test file (in `beforeAll`) and closes every client after it. */
export function useLiveShapes(): LiveShapes {
  let target: RedisTarget | undefined;
  let conn: Connection | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    target = await useRedis();
    conn = await Connection.connect(target.url);
  });
  afterAll(async () => {
    await conn?.close();
    for (const c of clients) c.disconnect();
  });
  const live = (): Connection => {
    if (conn === undefined) throw new Error('the server is not up yet');
    return conn;
  };
  const driver = (options: Parameters<RedisTarget['client']>[0]): Send => {
    if (target === undefined) throw new Error('the server is not up yet');
    const client = target.client(options) as unknown as Redis;
    clients.push(client);
    return (name, ...args) => client.call(name, ...args);
  };
  return {
    conn: live,
    shapes: [
      ['RESP2', () => driver({ protocol: 2 })],
      ['RESP3 (default mapping)', () => driver({ protocol: 3 })],
      ['RESP3 (resp3 mapping)', () => driver({ protocol: 3, replyMapping: 'resp3' })],
      ['the Connection', () => (name, ...args) => live().command(name, ...args)],
    ],
  };
}

/** Sends a typed read or write with `send` and parses its reply. */
export async function sendWith<T>(send: Send, r: reads.Read<T>): Promise<T> {
  return r.parse(await send(r.command, ...r.args.map(String)));
}
