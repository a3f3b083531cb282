import { type Connection, InvalidArgumentError, InvalidNameError } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, CacheExistsError, NoSuchCacheError, SPEC_DEFAULTS, type TableSpec } from '../src/index.js';
import { connect, tableName } from './helpers.js';

let conn: Connection;
let cache: Cache;
beforeAll(async () => {
  conn = await connect();
  cache = await Cache.open({ connection: conn });
});
afterAll(async () => {
  await cache.close();
  await conn.close();
});

const loader = (): number => 1;

describe('declared tables', () => {
  it('applies the defaults of cache.md §1 and lists the table in the directory', async () => {
    const name = tableName('d');
    const table = await cache.declare({ name, kind: 'USR', loader });
    expect(table.settings).toEqual({ name, kind: 'USR', ...SPEC_DEFAULTS });
    expect(SPEC_DEFAULTS).toEqual({ ttlMs: 5000, jitter: 0.1, maxSize: 100000, sweepMs: 1000, coherence: 'none', ringCapacity: 4096 });
    expect(cache.has(name)).toBe(true);
    expect(cache.list()).toContainEqual(table.settings);
    expect(cache.table(name)).toBe(table);
    await table.close();
  });

  it.each<[string, Partial<TableSpec<number>>, new (...args: never[]) => Error]>([
    ['empty name', { name: '' }, InvalidNameError],
    ['name with a brace', { name: 'a{b}' }, InvalidNameError],
    ['name of 121 bytes', { name: 'x'.repeat(121) }, InvalidNameError],
    ['lower-case kind', { kind: 'usr' }, InvalidArgumentError],
    ['two-letter kind', { kind: 'US' }, InvalidArgumentError],
    ['four-letter kind', { kind: 'USER' }, InvalidArgumentError],
    ['missing loader', { loader: undefined as never }, InvalidArgumentError],
    ['zero ttlMs', { ttlMs: 0 }, InvalidArgumentError],
    ['fractional ttlMs', { ttlMs: 1.5 }, InvalidArgumentError],
    ['negative jitter', { jitter: -0.01 }, InvalidArgumentError],
    ['jitter above 0.5', { jitter: 0.51 }, InvalidArgumentError],
    ['NaN jitter', { jitter: Number.NaN }, InvalidArgumentError],
    ['zero maxSize', { maxSize: 0 }, InvalidArgumentError],
    ['infinite sweepMs', { sweepMs: Number.POSITIVE_INFINITY }, InvalidArgumentError],
    ['unknown coherence', { coherence: 'gossip' as never }, InvalidArgumentError],
    ['zero ringCapacity', { ringCapacity: 0 }, InvalidArgumentError],
    ['codec without decode', { codec: { encode: String } as never }, InvalidArgumentError],
    ['unknown field', { ttl: 5 } as never, InvalidArgumentError],
  ])('refuses %s with a typed error', async (_label, override, errorClass) => {
    const name = tableName('bad');
    await expect(cache.declare({ name, kind: 'USR', loader, ...override })).rejects.toThrow(errorClass);
    expect(cache.has(override.name ?? name)).toBe(false);
  });

  it('accepts the edges of every range', async () => {
    const table = await cache.declare({ name: tableName('edge'), kind: 'ABC', loader, jitter: 0.5, ttlMs: 1, maxSize: 1, sweepMs: 1, ringCapacity: 1 });
    const zero = await cache.declare({ name: tableName('edge'), kind: 'ABC', loader, jitter: 0 });
    expect(table.settings.jitter).toBe(0.5);
    expect(zero.settings.jitter).toBe(0);
    await Promise.all([table.close(), zero.close()]);
  });

  it('refuses a second declaration of one name, even while the first is starting', async () => {
    const name = tableName('dup');
    const results = await Promise.allSettled([cache.declare({ name, kind: 'USR', loader }), cache.declare({ name, kind: 'USR', loader })]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(CacheExistsError);
    await cache.table(name).close();
  });

  it('answers NoSuchCacheError for an undeclared name and for a stopped table', async () => {
    expect(() => cache.table('never-declared')).toThrow(NoSuchCacheError);
    const name = tableName('stop');
    const table = await cache.declare({ name, kind: 'USR', loader });
    await table.close();
    expect(cache.has(name)).toBe(false);
    expect(cache.list().map((s) => s.name)).not.toContain(name);
    expect(() => cache.table(name)).toThrow(NoSuchCacheError);
    expect(table.closed).toBe(true);
    await expect(table.fetch('USR00000000001' as never)).rejects.toThrow(NoSuchCacheError);
    // The name is free again once its table stopped.
    const again = await cache.declare({ name, kind: 'USR', loader });
    await again.close();
  });

  it('close stops every table and refuses new ones', async () => {
    const own = await Cache.open({ connection: conn });
    const a = await own.declare({ name: tableName('cl'), kind: 'USR', loader });
    const b = await own.declare({ name: tableName('cl'), kind: 'USR', loader, coherence: 'broadcast' });
    const starting = own.declare({ name: tableName('cl'), kind: 'USR', loader, coherence: 'broadcast' });
    await own.close();
    expect([a.closed, b.closed, (await starting).closed]).toEqual([true, true, true]);
    expect(own.list()).toEqual([]);
    await expect(own.declare({ name: tableName('cl'), kind: 'USR', loader })).rejects.toThrow(InvalidArgumentError);
  });
});
