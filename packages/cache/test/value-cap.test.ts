import { type Connection, ValueTooLargeError, mintId } from '@echo/protocol/cache';
import { type RedisServer, startRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, stringCodec } from '../src/index.js';
import { connect, until } from './helpers.js';

// Its own server: "nothing written" is checked on the whole keyspace.
let server: RedisServer;
let conn: Connection;
let cache: Cache;
beforeAll(async () => {
  server = await startRedis();
  conn = await connect(server.url);
  cache = await Cache.open({ connection: conn });
});
afterAll(async () => {
  await cache.close();
  await conn.close();
  await server.stop();
});

async function keyspace(): Promise<string[]> {
  return ((await conn.command('KEYS', '*')) as string[]).sort();
}

const big = 'x'.repeat(10 * 1024 * 1024);

describe('a byte cap on every stored cache value', () => {
  it('refuses a 10 MiB set under the 1 MiB default, writing nothing, while 1 MiB minus a little passes', async () => {
    const ns = await cache.namespace({ name: 'cap-set', codec: stringCodec });
    const before = await keyspace();
    const error = await ns.set('k', big).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValueTooLargeError);
    expect((error as ValueTooLargeError).limit).toBe(1_048_576);
    expect((error as ValueTooLargeError).bytes).toBe(big.length);
    expect(await keyspace()).toEqual(before);
    expect(ns.peek('k')).toBeUndefined();
    await ns.set('ok', 'y'.repeat(1_048_576));
    expect(await ns.get('ok')).toHaveLength(1_048_576);
  });

  it("refuses a factory's oversized answer: the caller gets the error, the lease is given back, nothing is cached", async () => {
    const ns = await cache.namespace({ name: 'cap-fill', maxValueBytes: 100 });
    const before = await keyspace();
    await expect(ns.getOrSet('k', () => ({ blob: 'z'.repeat(200) }))).rejects.toBeInstanceOf(ValueTooLargeError);
    // The lease (a frame in the entry) is given back well before its 5 s expiry and no entry was
    // written; nobody waited on the lease, so the release left no log entry either.
    await until(async () => (await conn.command('EXISTS', 'ecc:{cap-fill}:k:k')) === 0, 1000);
    const after = (await keyspace()).filter((k) => !before.includes(k));
    expect(after).toEqual([]);
    expect(await ns.getOrSet('k', () => ({ blob: 'small' }))).toEqual({ blob: 'small' });
  });

  it('honours a namespace cap and Infinity', async () => {
    const tight = await cache.namespace({ name: 'cap-tight', codec: stringCodec, maxValueBytes: 4 });
    await expect(tight.set('k', '12345')).rejects.toBeInstanceOf(ValueTooLargeError);
    await tight.set('k', '1234');
    const open = await cache.namespace({ name: 'cap-open', codec: stringCodec, maxValueBytes: Infinity });
    await open.set('k', big.slice(0, 2 * 1024 * 1024));
    expect(await open.get('k')).toHaveLength(2 * 1024 * 1024);
  });

  it('refuses a 10 MiB table.put and an oversized loader answer, writing nothing', async () => {
    const table = await cache.declare({ name: 'cap-table', kind: 'USR', loader: () => 'w'.repeat(300), codec: stringCodec, maxValueBytes: 200 });
    const before = await keyspace();
    const id = mintId('USR');
    await expect(table.put(id, big)).rejects.toBeInstanceOf(ValueTooLargeError);
    await expect(table.fetch(mintId('USR'))).rejects.toBeInstanceOf(ValueTooLargeError);
    expect(await keyspace()).toEqual(before);
    expect(table.peek(id)).toBeUndefined();
  });

  it('refuses a bad cap', async () => {
    await expect(cache.namespace({ name: 'cap-bad', maxValueBytes: 0 })).rejects.toThrow(/maxValueBytes/);
    await expect(cache.declare({ name: 'cap-bad', kind: 'USR', loader: () => 1, maxValueBytes: -1 })).rejects.toThrow(/maxValueBytes/);
  });
});
