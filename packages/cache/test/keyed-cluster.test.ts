import { Connection, slot } from '@echo/protocol/extend';
import { startCluster, type RedisCluster } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { tableName, until } from './helpers.js';

let cluster: RedisCluster;
let connA: Connection;
let connB: Connection;
let cacheA: Cache;
let cacheB: Cache;

beforeAll(async () => {
  cluster = await startCluster({ masters: 3 });
  [connA, connB] = await Promise.all([Connection.connect({ cluster: cluster.seeds, strictKeys: true }), Connection.connect({ cluster: cluster.seeds, strictKeys: true })]);
  cacheA = await Cache.open({ connection: connA });
  cacheB = await Cache.open({ connection: connB });
}, 60_000);
afterAll(async () => {
  await Promise.all([cacheA.close(), cacheB.close()]);
  await Promise.all([connA.close(), connB.close()]);
  await cluster.stop();
});

describe('keyed namespaces on a 3-master cluster', { timeout: 60_000 }, () => {
  it('every verb works in namespaces on different slots, coherence included', async () => {
    const names = Array.from({ length: 6 }, () => tableName('kc'));
    // Several namespaces, so more than one master holds some.
    expect(new Set(names.map((n) => Math.floor(slot(`{${n}}`) / 5462))).size).toBeGreaterThan(1);
    for (const name of names) {
      const a = await cacheA.namespace<number>({ name });
      const b = await cacheB.namespace<number>({ name });
      await a.set('k1', 1, { tags: ['t'] });
      expect(await a.getOrSet('k2', () => 2, { tags: ['t'] })).toBe(2);
      await a.set('k3', 3);
      expect(await b.getMany(['k1', 'k2', 'k3', 'k4'])).toEqual([1, 2, 3, undefined]);
      await a.set('k3', 33);
      await until(() => b.peek('k3') === undefined);
      expect(await b.get('k3')).toBe(33);
      expect(await a.deleteByTag('t')).toBe(2);
      await until(() => b.peek('k1') === undefined && b.peek('k2') === undefined);
      expect(await b.has('k1')).toBe(false);
      expect(await a.deleteMany(['k3'])).toBe(1);
      await a.set('k5', 5);
      expect(await b.get('k5')).toBe(5);
      await a.clear();
      await until(() => b.peek('k5') === undefined);
      expect(await b.get('k5')).toBeUndefined();
    }
  });

  it('pull, expire and a negatively cached answer (entry and log in one slot) work on every master', async () => {
    const names = Array.from({ length: 6 }, () => tableName('kc'));
    expect(new Set(names.map((n) => Math.floor(slot(`{${n}}`) / 5462))).size).toBeGreaterThan(1);
    for (const name of names) {
      const a = await cacheA.namespace<number | null>({ name, ttlMs: 600_000, graceMs: 60_000, negativeTtlMs: 30_000 });
      const b = await cacheB.namespace<number | null>({ name, ttlMs: 600_000, graceMs: 60_000, negativeTtlMs: 30_000 });
      await a.set('p', 1);
      expect(await b.get('p')).toBe(1);
      expect(await a.pull('p')).toBe(1);
      await until(() => b.peek('p') === undefined);
      expect(await b.get('p')).toBeUndefined();
      await a.set('e', 2);
      expect(await b.get('e')).toBe(2);
      expect(await a.expire('e')).toBe(true);
      await until(() => b.peek('e') === undefined);
      expect(await b.getEntry('e')).toMatchObject({ value: 2, source: 'stale' });
      let loads = 0;
      expect(await a.getOrSet('n', () => (loads++, null))).toBeNull();
      expect(await b.getOrSet('n', () => (loads++, null))).toBeNull();
      expect(loads).toBe(1);
      expect(await b.get('n', { default: 7 })).toBe(7);
    }
  });
});
