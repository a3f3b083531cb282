/**
 * The edges of a keyed namespace a bentocache user meets first: `get(key, { default })` with a
 * function (called on a miss only, its answer returned and not stored), `set(key, undefined)`
 * (refused, nothing written) and `maxSize` given as a size (refused as a count of entries).
 */
import { type Connection, InvalidArgumentError } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
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

const exists = async (name: string, key: string): Promise<boolean> => Number(await conn.command('EXISTS', `ecc:{${name}}:k:${key}`)) === 1;

describe('get(key, { default }) with a function', () => {
  it('calls it on a miss only and answers what it returns, sync or async, writing nothing', async () => {
    const name = tableName('ke');
    const ns = await cache.namespace<string | null>({ name });
    let calls = 0;
    const fallback = (): string => {
      calls++;
      return 'x';
    };
    expect(await ns.get('missing', { default: fallback })).toBe('x');
    expect(await ns.get('missing', { default: () => Promise.resolve('later') })).toBe('later');
    expect(calls).toBe(1);
    expect(await ns.has('missing')).toBe(false);
    expect(await exists(name, 'missing')).toBe(false);

    await ns.set('present', 'stored');
    expect(await ns.get('present', { default: fallback })).toBe('stored');
    expect(calls).toBe(1);

    // A cached absence is a miss for a default, as it is for a plain value.
    await ns.set('absent', null);
    expect(await ns.get('absent', { default: fallback })).toBe('x');
    expect(calls).toBe(2);
    expect(await ns.get('absent')).toBeNull();
  });

  it('a default that throws rejects the get with its error', async () => {
    const ns = await cache.namespace<string>({ name: tableName('ke') });
    const boom = new Error('no fallback today');
    await expect(
      ns.get('missing', {
        default: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
  });
});

describe('set(key, undefined)', () => {
  it('is refused with InvalidArgumentError naming delete and negative caching, and writes nothing', async () => {
    const name = tableName('ke');
    const ns = await cache.namespace<string | undefined>({ name });
    const refused = await ns.set('fresh', undefined).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect((refused as Error).message).toMatch(/delete\(key\)/);
    expect((refused as Error).message).toMatch(/negativeTtl/);
    expect(await exists(name, 'fresh')).toBe(false);
    expect(ns.peek('fresh')).toBeUndefined();

    // An entry already there is left as it was, here and in L2.
    await ns.set('kept', 'v1');
    await expect(ns.set('kept', undefined)).rejects.toThrow(InvalidArgumentError);
    await expect(ns.setForever('kept', undefined)).rejects.toThrow(InvalidArgumentError);
    expect(await ns.get('kept')).toBe('v1');
    expect(ns.peek('kept')?.value).toBe('v1');
    const other = await Cache.open({ connection: conn });
    try {
      expect(await (await other.namespace<string | undefined>({ name })).get('kept')).toBe('v1');
    } finally {
      await other.close();
    }
  });
});

describe('maxSize given as a size', () => {
  it("is refused as a count of entries, not as milliseconds, on a namespace and on a table", async () => {
    const onNamespace = await cache.namespace({ name: tableName('ke'), maxSize: '10mb' as unknown as number }).catch((error: unknown) => error);
    expect(onNamespace).toBeInstanceOf(InvalidArgumentError);
    expect((onNamespace as Error).message).toMatch(/maxSize: is a count of entries/);
    expect((onNamespace as Error).message).toMatch(/maxValueBytes/);
    expect((onNamespace as Error).message).not.toMatch(/millisecond/);

    const onTable = await cache.declare({ name: tableName('ke'), kind: 'USR', loader: () => 1, maxSize: '10mb' as unknown as number }).catch((error: unknown) => error);
    expect(onTable).toBeInstanceOf(InvalidArgumentError);
    expect((onTable as Error).message).toMatch(/maxSize: is a count of entries/);

    await expect(cache.namespace({ name: tableName('ke'), maxSize: 0 })).rejects.toThrow(/count of entries/);
    expect((await cache.namespace({ name: tableName('ke'), maxSize: 5 })).name).toMatch(/^ke/);
  });
});
