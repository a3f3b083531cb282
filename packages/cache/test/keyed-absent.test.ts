/**
 * What a factory's answer does to the cache: an absent answer (`undefined`/`null`) cached for its own
 * short `negativeTtl` and seen by another connection without a second load; `ctx.skip()` and
 * `cacheIf` handing an answer over uncached and giving the lease back; `get(key, { default })`.
 */
import type { Connection } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { connect, sleep, tableName, until } from './helpers.js';

let connA: Connection;
let connB: Connection;
let cacheA: Cache;
let cacheB: Cache;
beforeAll(async () => {
  [connA, connB] = await Promise.all([connect(), connect()]);
  cacheA = await Cache.open({ connection: connA });
  cacheB = await Cache.open({ connection: connB });
});
afterAll(async () => {
  await Promise.all([cacheA.close(), cacheB.close()]);
  await Promise.all([connA.close(), connB.close()]);
});

type Row = { readonly id: number } | null | undefined;

const pttl = async (name: string, key: string): Promise<number> => Number(await connA.command('PTTL', `ecc:{${name}}:k:${key}`));

describe('negative caching', () => {
  it('a null answer is cached for negativeTtl and served to another connection without a second load', async () => {
    const name = tableName('kn');
    const a = await cacheA.namespace<Row>({ name, ttlMs: 600_000, graceMs: 600_000, negativeTtlMs: 30_000 });
    const b = await cacheB.namespace<Row>({ name, ttlMs: 600_000, graceMs: 600_000, negativeTtlMs: 30_000 });
    let loads = 0;
    const missingRow = (): Row => {
      loads++;
      return null;
    };
    expect(await a.getOrSetEntry('user:404', missingRow)).toMatchObject({ value: null, source: 'fill' });
    expect(await b.getOrSetEntry('user:404', missingRow)).toMatchObject({ value: null, source: 'l2' });
    expect(await b.getOrSet('user:404', missingRow)).toBeNull();
    expect(loads).toBe(1);
    // Its own lifetime, no graceMs: at most negativeTtl on the server, where a present row gets ttl + grace.
    const left = await pttl(name, 'user:404');
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30_000);
    await a.getOrSet('user:1', () => ({ id: 1 }));
    expect(await pttl(name, 'user:1')).toBeGreaterThan(1_000_000);
  });

  it('an undefined answer is stored as an empty NIL frame (no codec involved) and read back as undefined', async () => {
    const name = tableName('kn');
    const a = await cacheA.namespace<Row>({ name, negativeTtlMs: 30_000 });
    const b = await cacheB.namespace<Row>({ name, negativeTtlMs: 30_000 });
    let loads = 0;
    const read = await a.getOrSetEntry('gone', () => {
      loads++;
      return undefined;
    });
    expect(read).toMatchObject({ value: undefined, source: 'fill' });
    expect(read.version?.startsWith('NIL')).toBe(true);
    const frame = (await connA.command('GET', `ecc:{${name}}:k:gone`)) as string;
    expect(frame).toHaveLength(27);
    expect(frame.startsWith('NIL')).toBe(true);
    expect(await b.getOrSetEntry('gone', () => ({ id: loads++ }))).toMatchObject({ value: undefined, source: 'l2' });
    expect(await a.getOrSet('gone', () => ({ id: loads++ }))).toBeUndefined();
    expect(loads).toBe(1);
    expect(await pttl(name, 'gone')).toBeLessThanOrEqual(30_000);
    // A cached absence is not a value: has says so, and get's default answers it.
    expect(await b.has('gone')).toBe(false);
    expect(await b.get('gone', { default: { id: 7 } })).toEqual({ id: 7 });
  });

  it('a cached absence gets no grace in another L1 either: once negativeTtl is over, the next getOrSet loads the row', async () => {
    const name = tableName('kn');
    const a = await cacheA.namespace<Row>({ name, ttlMs: 600_000, graceMs: 600_000, negativeTtlMs: 50 });
    const b = await cacheB.namespace<Row>({ name, ttlMs: 600_000, graceMs: 600_000, negativeTtlMs: 50 });
    expect(await a.getOrSet('late', () => null)).toBeNull();
    expect(await b.getEntry('late')).toMatchObject({ value: null, source: 'l2' });
    await until(async () => Number(await connA.command('EXISTS', `ecc:{${name}}:k:late`)) === 0);
    // A slow load: a stale absence in grace would be answered at the soft timeout (0) instead.
    const slow = async (): Promise<Row> => {
      await sleep(30);
      return { id: 9 };
    };
    expect(await b.getOrSetEntry('late', slow)).toMatchObject({ value: { id: 9 }, source: 'fill' });
  });

  it('a per-call negativeTtl replaces the namespace one, ctx.setTtl wins over both, and without one an absence lives ttl', async () => {
    const name = tableName('kn');
    const ns = await cacheA.namespace<Row>({ name, ttlMs: 600_000, negativeTtlMs: 30_000 });
    await ns.getOrSet('call', () => null, { negativeTtlMs: 2_000 });
    expect(await pttl(name, 'call')).toBeLessThanOrEqual(2_000);
    await ns.getOrSet('adaptive', (ctx) => {
      ctx.setTtl(400_000);
      return null;
    });
    expect(await pttl(name, 'adaptive')).toBeGreaterThan(300_000);
    const plain = await cacheA.namespace<Row>({ name: tableName('kn'), ttlMs: 600_000 });
    await plain.getOrSet('none', () => undefined);
    expect(Number(await connA.command('PTTL', `ecc:{${plain.name}}:k:none`))).toBeGreaterThan(500_000);
  });
});

describe("don't cache this one", () => {
  it('ctx.skip() hands the answer to every caller in this process uncached, writes nothing and gives the lease back', async () => {
    const name = tableName('ks');
    const ns = await cacheA.namespace<Row>({ name, leaseMs: 60_000 });
    let loads = 0;
    const reads = await Promise.all(
      Array.from({ length: 10 }, () =>
        ns.getOrSetEntry('flaky', async (ctx) => {
          loads++;
          await new Promise((resolve) => setTimeout(resolve, 20));
          ctx.skip();
          return { id: 3 };
        }),
      ),
    );
    expect(loads).toBe(1);
    expect(reads.map((r) => r.source)).toEqual(['uncached', ...Array<string>(9).fill('uncached')]);
    expect(reads.every((r) => r.value?.id === 3 && r.version === undefined)).toBe(true);
    expect(await connA.command('EXISTS', `ecc:{${name}}:k:flaky`, `ecc:{${name}}:l:flaky`)).toBe(0);
    expect(ns.peek('flaky')).toBeUndefined();
    expect(ns.stats().uncached).toBe(1);
    // Nothing was cached, so the next call loads again.
    expect(await ns.getOrSet('flaky', () => ({ id: 4 }))).toEqual({ id: 4 });
  });

  it('a caller waiting on the lease in another connection loads for itself at once instead of waiting out the lease', async () => {
    const name = tableName('ks');
    const a = await cacheA.namespace<Row>({ name, leaseMs: 60_000 });
    const b = await cacheB.namespace<Row>({ name, leaseMs: 60_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = a.getOrSetEntry('k', async (ctx) => {
      await gate;
      ctx.skip();
      return { id: 1 };
    });
    // The lease is A's once its lease frame holds the entry; then B waits on it.
    await until(async () => String(await connA.command('GET', `ecc:{${name}}:k:k`)).startsWith('~L'));
    const started = Date.now();
    const second = b.getOrSetEntry('k', () => ({ id: 2 }));
    // B waits on the lease once it marked the lease frame waited; however slow the machine, not before.
    await until(async () => String(await connA.command('GET', `ecc:{${name}}:k:k`)).startsWith('~Lw'));
    release();
    expect(await first).toMatchObject({ value: { id: 1 }, source: 'uncached' });
    expect(await second).toMatchObject({ value: { id: 2 }, source: 'fill' });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(b.stats().leaseWaits).toBeGreaterThanOrEqual(1);
  });

  it('cacheIf on the namespace decides per answer, and a per-call cacheIf replaces it', async () => {
    const name = tableName('ks');
    const ns = await cacheA.namespace<number[]>({ name, cacheIf: (list) => list.length > 0 });
    expect(await ns.getOrSetEntry('empty', () => [])).toMatchObject({ value: [], source: 'uncached' });
    expect(await connA.command('EXISTS', `ecc:{${name}}:k:empty`)).toBe(0);
    expect(await ns.getOrSetEntry('full', () => [1])).toMatchObject({ value: [1], source: 'fill' });
    expect(await ns.getOrSetEntry('empty2', () => [], { cacheIf: () => true })).toMatchObject({ source: 'fill' });
    expect(await ns.getOrSetEntry('full2', () => [1], { cacheIf: () => false })).toMatchObject({ source: 'uncached' });
    expect(await connA.command('EXISTS', `ecc:{${name}}:k:empty2`, `ecc:{${name}}:k:full2`)).toBe(1);
  });

  it('a skipped refresh in grace leaves the stale entry as it was', async () => {
    const name = tableName('ks');
    const ns = await cacheA.namespace<Row>({ name, ttlMs: 50, graceMs: 600_000, l1: false });
    await ns.set('k', { id: 1 });
    const before = await connA.command('GET', `ecc:{${name}}:k:k`);
    await sleep(100);
    const fresh = await ns.getOrSetEntry('k', (ctx) => {
      ctx.skip();
      return { id: 2 };
    }, { timeouts: { softMs: 10_000 } });
    expect(fresh).toMatchObject({ value: { id: 2 }, source: 'uncached' });
    expect(await connA.command('GET', `ecc:{${name}}:k:k`)).toEqual(before);
    expect(await connA.command('EXISTS', `ecc:{${name}}:l:k`)).toBe(0);
  });
});

describe('get with a default', () => {
  it('answers the default for a missing key and writes nothing; a present value wins', async () => {
    const name = tableName('kd');
    const ns = await cacheA.namespace<Row>({ name });
    expect(await ns.get('missing', { default: { id: 0 } })).toEqual({ id: 0 });
    expect(await connA.command('EXISTS', `ecc:{${name}}:k:missing`)).toBe(0);
    await ns.set('present', { id: 5 });
    expect(await ns.get('present', { default: { id: 0 } })).toEqual({ id: 5 });
    await ns.set('nulled', null);
    expect(await ns.get('nulled', { default: { id: 0 } })).toEqual({ id: 0 });
    expect(await ns.get('nulled')).toBeNull();
    expect(await ns.get('missing', {})).toBeUndefined();
  });
});
