/**
 * `pull` (get and delete in one step on the server) and `expire` (stale now, kept for grace), each
 * seen by another connection's L1 through the coherence log.
 */
import type { Connection } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, bufferCodec } from '../src/index.js';
import { connect, tableName, until } from './helpers.js';

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

interface User {
  readonly name: string;
}

const entry = (name: string, key: string): string => `ecc:{${name}}:k:${key}`;

describe('pull', () => {
  it('answers the value and deletes it in one command; another L1 drops its copy', async () => {
    const name = tableName('kp');
    const a = await cacheA.namespace<User>({ name });
    const b = await cacheB.namespace<User>({ name });
    await a.set('token:1', { name: 'Ada' });
    expect(await b.getEntry('token:1')).toMatchObject({ source: 'l2' });
    expect(b.peek('token:1')).toBeDefined();
    const sent = connA.stats().commands;
    const pulled = await a.pull('token:1');
    expect(connA.stats().commands - sent).toBe(1);
    expect(pulled).toEqual({ name: 'Ada' });
    // The caller's own copy: nobody else holds it.
    expect(Object.isFrozen(pulled)).toBe(false);
    expect(await connA.command('EXISTS', entry(name, 'token:1'))).toBe(0);
    expect(a.peek('token:1')).toBeUndefined();
    await until(() => b.peek('token:1') === undefined);
    expect(await b.get('token:1')).toBeUndefined();
    expect(await a.pull('token:1')).toBeUndefined();
  });

  it('of two connections pulling one key at once, exactly one gets the value', async () => {
    const name = tableName('kp');
    const a = await cacheA.namespace<number>({ name });
    const b = await cacheB.namespace<number>({ name });
    for (let round = 0; round < 20; round++) {
      await a.set(`once:${round}`, round);
      const answers = await Promise.all([a.pull(`once:${round}`), b.pull(`once:${round}`)]);
      expect(answers.filter((v) => v === round)).toHaveLength(1);
      expect(answers.filter((v) => v === undefined)).toHaveLength(1);
    }
  });

  it('carries binary values, and a cached absence pulls as undefined', async () => {
    const ns = await cacheA.namespace<Buffer>({ name: tableName('kp'), codec: bufferCodec });
    const bytes = Buffer.from([0, 255, 10, 13, 0x80, 0xc3]);
    await ns.set('b', bytes);
    expect(await ns.pull('b')).toEqual(bytes);
    const absent = await cacheA.namespace<number | undefined>({ name: tableName('kp') });
    await absent.getOrSet('none', () => undefined);
    expect(await absent.pull('none')).toBeUndefined();
    expect(await connA.command('EXISTS', entry(absent.name, 'none'))).toBe(0);
  });
});

describe('expire', () => {
  it('marks the entry stale now and keeps it for its graceMs: reads serve it stale, the next getOrSet refreshes it', async () => {
    const name = tableName('ke');
    const a = await cacheA.namespace<User>({ name, ttlMs: 600_000, graceMs: 60_000 });
    const b = await cacheB.namespace<User>({ name, ttlMs: 600_000, graceMs: 60_000 });
    await a.set('user:1', { name: 'old' });
    expect(await b.getEntry('user:1')).toMatchObject({ source: 'l2' });
    expect(await a.expire('user:1')).toBe(true);
    // Kept for the grace, not ttl + grace.
    const left = Number(await connA.command('PTTL', entry(name, 'user:1')));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(60_000);
    await until(() => b.peek('user:1') === undefined);
    expect(await b.getEntry('user:1')).toMatchObject({ value: { name: 'old' }, source: 'stale' });
    expect(await b.get('user:1')).toEqual({ name: 'old' });
    // Stale-while-revalidate: the stale value at once, one refresh behind it.
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const load = async (): Promise<User> => {
      loads++;
      await gate;
      return { name: 'new' };
    };
    expect(await b.getOrSetEntry('user:1', load)).toMatchObject({ value: { name: 'old' }, source: 'stale' });
    release();
    await until(async () => (await a.get('user:1'))?.name === 'new');
    expect(loads).toBe(1);
    expect(await b.getOrSetEntry('user:1', load)).toMatchObject({ value: { name: 'new' } });
    expect(loads).toBe(1);
  });

  it('keeps the namespace grace (never longer than the entry had left); without grace it deletes; a missing key answers false', async () => {
    const name = tableName('ke');
    const ns = await cacheA.namespace<number>({ name, ttlMs: 600_000, graceMs: 30_000 });
    await ns.setForever('forever', 2);
    expect(Number(await connA.command('PTTL', entry(name, 'forever')))).toBe(-1);
    expect(await ns.expire('forever')).toBe(true);
    const left = Number(await connA.command('PTTL', entry(name, 'forever')));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30_000);
    expect(await ns.getEntry('forever')).toMatchObject({ value: 2, source: 'stale' });
    await ns.set('short', 3, { ttlMs: 1, graceMs: 5_000 });
    expect(await ns.expire('short')).toBe(true);
    expect(Number(await connA.command('PTTL', entry(name, 'short')))).toBeLessThanOrEqual(5_001);
    expect(await ns.expire('missing')).toBe(false);
    const none = await cacheA.namespace<number>({ name: tableName('ke'), ttlMs: 600_000 });
    await none.set('k', 1);
    expect(await none.expire('k')).toBe(true);
    expect(await connA.command('EXISTS', entry(none.name, 'k'))).toBe(0);
    expect(await none.get('k')).toBeUndefined();
  });

  it('an expired entry keeps its version: its tag still deletes it, and any later write wins', async () => {
    const name = tableName('ke');
    const ns = await cacheA.namespace<number>({ name, ttlMs: 600_000, graceMs: 60_000 });
    await ns.set('t1', 1, { tags: ['team'] });
    const version = ((await connA.command('GET', entry(name, 't1'))) as string).slice(0, 14);
    await ns.expire('t1');
    expect(((await connA.command('GET', entry(name, 't1'))) as string).slice(0, 14)).toBe(version);
    expect(await ns.deleteByTag('team')).toBe(1);
    await ns.set('t2', 1);
    await ns.expire('t2');
    await ns.set('t2', 2);
    expect(await ns.getEntry('t2')).toMatchObject({ value: 2, source: 'hit' });
  });
});
