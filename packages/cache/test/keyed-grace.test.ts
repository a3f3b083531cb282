import type { Connection } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, FactoryTimeoutError } from '../src/index.js';
import { connect, sleep, tableName } from './helpers.js';

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

const never = (): Promise<string> => new Promise(() => undefined);

describe('keyed namespaces: grace, timeouts, per-call control', () => {
  it('serves the stale value in grace while one refresh runs (soft timeout 0), then the new one', async () => {
    const ns = await cache.namespace<string>({ name: tableName('kg'), ttlMs: 300, graceMs: 10_000 });
    await ns.set('k', 'old');
    await sleep(320);
    let release!: (v: string) => void;
    const refreshing = new Promise<string>((r) => (release = r));
    expect(await ns.getOrSetEntry('k', () => refreshing)).toMatchObject({ value: 'old', source: 'stale' });
    release('new');
    await expect.poll(() => ns.peek('k')?.value).toBe('new');
    expect(await ns.getOrSetEntry('k', never)).toMatchObject({ value: 'new', source: 'hit' });
  });

  it('waits for the factory up to the soft timeout, then answers stale', async () => {
    const ns = await cache.namespace<string>({ name: tableName('kg'), ttlMs: 50, graceMs: 10_000 });
    await ns.set('k', 'old');
    await sleep(60);
    const fast = await ns.getOrSetEntry('k', () => Promise.resolve('fresh'), { timeouts: { softMs: 500 } });
    expect(fast).toMatchObject({ value: 'fresh', source: 'fill' });
    await sleep(60);
    const started = Date.now();
    const slow = await ns.getOrSetEntry('k', never, { timeouts: { softMs: 40 } });
    expect(slow).toMatchObject({ value: 'fresh', source: 'stale' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('a factory that throws during grace leaves the stale value served and reports the error', async () => {
    const ns = await cache.namespace<string>({ name: tableName('kg'), ttlMs: 50, graceMs: 10_000, timeouts: { softMs: 1000 } });
    const errors: unknown[] = [];
    ns.on('factory-error', (e) => errors.push(e.error));
    await ns.set('k', 'old');
    await sleep(60);
    const read = await ns.getOrSetEntry('k', () => {
      throw new Error('db down');
    });
    expect(read).toMatchObject({ value: 'old', source: 'stale' });
    expect(errors).toHaveLength(1);
    expect(ns.stats()).toMatchObject({ factoryErrors: 1, staleServed: 1 });
  });

  it('without a stale value the factory error reaches every waiter and nothing is cached', async () => {
    const ns = await cache.namespace<string>({ name: tableName('kg') });
    const boom = new Error('boom');
    const results = await Promise.allSettled([1, 2, 3].map(() => ns.getOrSet('k', () => Promise.reject(boom))));
    expect(results.every((r) => r.status === 'rejected' && r.reason === boom)).toBe(true);
    expect(await ns.get('k')).toBeUndefined();
    // The lease was given back: the next call loads at once.
    expect(await ns.getOrSet('k', () => 'ok')).toBe('ok');
  });

  it('a hard timeout fails the call with a typed error; the factory still fills in the background', async () => {
    const ns = await cache.namespace<string>({ name: tableName('kg') });
    await expect(ns.getOrSet('k', () => sleep(80).then(() => 'late'), { timeouts: { hardMs: 20 } })).rejects.toThrow(FactoryTimeoutError);
    await expect.poll(() => ns.peek('k')?.value).toBe('late');
  });

  it('ctx.setTtl sets the lifetime from what was loaded; forceFresh reloads; forever entries do not expire', async () => {
    const name = tableName('kg');
    const ns = await cache.namespace<{ ttlMs: number }>({ name, ttlMs: 60_000 });
    // 5 s, well under the namespace's 60 s: a loaded machine cannot let it lapse before the check.
    await ns.getOrSet('adaptive', (ctx) => {
      ctx.setTtl(5_000);
      return { ttlMs: 5_000 };
    });
    const pttl = Number(await conn.command('PTTL', `ecc:{${name}}:k:adaptive`));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(5_000);
    let loads = 0;
    await ns.getOrSet('f', () => ({ ttlMs: ++loads }));
    expect(await ns.getOrSetEntry('f', () => ({ ttlMs: ++loads }), { forceFresh: true })).toMatchObject({ source: 'fill', value: { ttlMs: 2 } });
    expect(await ns.get('f')).toEqual({ ttlMs: 2 });
    await ns.setForever('forever', { ttlMs: 0 });
    expect(Number(await conn.command('PTTL', `ecc:{${name}}:k:forever`))).toBe(-1);
    await ns.getOrSetForever('forever2', () => ({ ttlMs: 0 }));
    expect(Number(await conn.command('PTTL', `ecc:{${name}}:k:forever2`))).toBe(-1);
    expect(ns.peek('forever2')?.expiresAt).toBe(Infinity);
  });

  it('hits hand out frozen values by default; clone hands out copies; the caller keeps its own object mutable', async () => {
    const frozen = await cache.namespace<{ n: number[] }>({ name: tableName('kg') });
    const mine = { n: [1] };
    await frozen.set('k', mine);
    mine.n.push(2);
    const hit = await frozen.get('k');
    expect(hit).toEqual({ n: [1] });
    expect(Object.isFrozen(hit) && Object.isFrozen(hit?.n)).toBe(true);
    expect(() => (hit as { n: number[] }).n.push(3)).toThrow(TypeError);
    const cloned = await cache.namespace<{ n: number[] }>({ name: tableName('kg'), read: 'clone' });
    await cloned.set('k', { n: [1] });
    const copy = (await cloned.get('k')) as { n: number[] };
    copy.n.push(9);
    expect(await cloned.get('k')).toEqual({ n: [1] });
  });

  it('a full L1 evicts the least recently used entry and counts it', async () => {
    const ns = await cache.namespace<number>({ name: tableName('kg'), maxSize: 3 });
    await ns.set('a', 1);
    await ns.set('b', 2);
    await ns.set('c', 3);
    await ns.get('a'); // a is used; b is now the least recently used
    await ns.set('d', 4);
    expect(ns.peek('b')).toBeUndefined();
    expect(ns.peek('a')?.value).toBe(1);
    expect(ns.peek('d')?.value).toBe(4);
    expect(ns.stats()).toMatchObject({ size: 3, evictions: 1 });
  });
});
