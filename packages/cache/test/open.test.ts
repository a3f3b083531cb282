import { type Connection, InvalidArgumentError, RenamedError } from '@echo/protocol/cache';
import { useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, NamespaceOptionsError, bufferCodec, stringCodec } from '../src/index.js';
import { connect, tableName } from './helpers.js';

let conn: Connection;
let url: string;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await connect(url);
});
afterAll(async () => {
  await conn.close();
});

describe('Cache.open', () => {
  it('connects from a URL, and close() closes the connection it made', async () => {
    const cache = await Cache.open({ connect: url });
    const ns = await cache.namespace<number>({ name: tableName('o') });
    await ns.set('a', 1);
    expect(await ns.get('a')).toBe(1);
    expect(cache.connection.status).toBe('ready');
    await cache.close();
    expect(cache.connection.status).toBe('closed');
  });

  it('connects from connection options', async () => {
    const cache = await Cache.open({ connect: { url, name: 'cache-open-test' } });
    const names = String(await conn.command('CLIENT', 'LIST'));
    expect(names).toContain('name=cache-open-test');
    await cache.close();
  });

  it('shares a given connection and leaves it open on close()', async () => {
    const cache = await Cache.open({ connection: conn });
    expect(cache.connection).toBe(conn);
    await cache.close();
    expect(conn.status).toBe('ready');
    expect(await conn.command('PING')).toBe('PONG');
  });

  it('refuses a URL given as the connection, and a construction that is not Cache.open', async () => {
    await expect(Cache.open({ connection: url as never })).rejects.toThrow(/as connect/);
    const Ctor = Cache as unknown as new (url: string) => Cache;
    expect(() => new Ctor(url)).toThrow(InvalidArgumentError);
    expect(() => new Ctor(url)).toThrow(/Cache\.open/);
  });
});

describe('a namespace asked for twice', () => {
  let cache: Cache;
  beforeAll(async () => {
    cache = await Cache.open({ connection: conn });
  });
  afterAll(async () => {
    await cache.close();
  });

  it('answers the same handle for the same options, even while the first is opening', async () => {
    const name = tableName('twice');
    const [a, b] = await Promise.all([cache.namespace({ name, ttlMs: 1000 }), cache.namespace({ name, ttlMs: 1000 })]);
    expect(b).toBe(a);
    // Defaults count as given: { name } and { name, graceMs: 0 } are the same declaration.
    expect(await cache.namespace({ name, ttlMs: 1000, graceMs: 0, read: 'frozen' })).toBe(a);
    const shared = await cache.namespace({ name: tableName('codec'), codec: stringCodec });
    expect(await cache.namespace({ name: shared.name, codec: stringCodec })).toBe(shared);
  });

  it.each<[string, object, object, string]>([
    ['ttl', { ttlMs: 1000 }, { ttlMs: 2000 }, 'ttlMs'],
    ['a default vs a value', {}, { graceMs: 5 }, 'graceMs'],
    ['codec (another object)', { codec: bufferCodec }, { codec: { ...bufferCodec } }, 'codec'],
    ['read mode', {}, { read: 'clone' }, 'read'],
    ['a timeout', { timeouts: { softMs: 5 } }, { timeouts: { softMs: 6 } }, 'timeouts.softMs'],
    ['outage settings', { outage: true }, { outage: { failures: 9 } }, 'outage.failures'],
    ['the value cap', {}, { maxValueBytes: 10 }, 'maxValueBytes'],
  ])('with a different %s throws NamespaceOptionsError naming it', async (_, first, second, option) => {
    const name = tableName('diff');
    const open = await cache.namespace({ name, ...first });
    const refused = await cache.namespace({ name, ...second }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NamespaceOptionsError);
    expect((refused as NamespaceOptionsError).option).toBe(option);
    expect((refused as NamespaceOptionsError).message).toContain(`different ${option}`);
    // The open handle is untouched.
    expect(open.closed).toBe(false);
  });

  it('opens afresh once the first handle stopped', async () => {
    const name = tableName('again');
    const first = await cache.namespace({ name });
    await first.close();
    const second = await cache.namespace({ name, ttlMs: 5 });
    expect(second).not.toBe(first);
    expect(second.closed).toBe(false);
  });
});

describe('one vocabulary: close()', () => {
  it('refuses stop() on a namespace and a table with a typed error naming close(), and leaves both open', async () => {
    const cache = await Cache.open({ connection: conn });
    const ns = await cache.namespace<number>({ name: tableName('stopns') });
    await ns.set('k', 1);
    const table = await cache.declare({ name: tableName('stoptb'), kind: 'USR', loader: () => Promise.resolve({ n: 1 }) });
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name, called on purpose to see it refused
    for (const [face, stop] of [['Namespace', () => ns.stop()], ['Table', () => table.stop()]] as const) {
      let refused: unknown;
      try {
        stop();
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(RenamedError);
      expect((refused as RenamedError).called).toBe(`${face}.stop()`);
      expect((refused as RenamedError).use).toBe(`${face}.close()`);
      expect((refused as Error).message).toContain('close()');
    }
    expect(ns.closed).toBe(false);
    expect(table.closed).toBe(false);
    expect(await ns.get('k')).toBe(1);
    await cache.close();
  });
});
