/**
 * What a fill costs the server, and what its one-command lease does in the races it meets: a miss
 * takes the lease in the read that found the entry absent (a lease frame in the entry itself), and the
 * fill's write replaces that frame in one `SET XX GET`, putting back whatever it finds instead.
 */
import type { Connection } from '@echo/protocol/cache';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { connect, tableName, until } from './helpers.js';

/** Calls per command since the last `CONFIG RESETSTAT`, the `INFO`/`CONFIG` asking for them and the log readers' reads left out. */
async function commandCalls(conn: Connection): Promise<Record<string, number>> {
  const stats = String(await conn.command('INFO', 'commandstats'));
  const calls: Record<string, number> = {};
  for (const [, name, n] of stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) {
    if (name !== undefined && n !== undefined && !/^(info|config|xread|xreadgroup|xinfo)/.test(name)) calls[name] = Number(n);
  }
  return calls;
}

let server: RedisServer;
let connA: Connection;
let connB: Connection;
let cacheA: Cache;
let cacheB: Cache;
beforeAll(async () => {
  // A server of its own: commandstats must count these calls alone.
  server = await startRedis();
  [connA, connB] = await Promise.all([connect(server.url), connect(server.url)]);
  cacheA = await Cache.open({ connection: connA });
  cacheB = await Cache.open({ connection: connB });
});
afterAll(async () => {
  await Promise.all([cacheA.close(), cacheB.close()]);
  await Promise.all([connA.close(), connB.close()]);
  await server.stop();
});

describe('a fill', () => {
  it('of a fresh key is two round trips and 3 server commands, inner commands included: one plain SET NX GET, one script', async () => {
    const name = tableName('cost');
    const ns = await cacheA.namespace<{ n: number }>({ name, l1: false });
    // Cold keys: the miss meter sends misses straight to the lease read (and the scripts get loaded).
    for (let i = 0; i < 40; i++) await ns.getOrSet(`warm${String(i)}`, () => ({ n: i }));
    await connA.command('CONFIG', 'RESETSTAT');
    const before = connA.stats();
    expect(await ns.getOrSet('fresh', () => ({ n: 1 }))).toEqual({ n: 1 });
    const after = connA.stats();
    const calls = await commandCalls(connA);
    expect(after.commands - before.commands).toBe(2);
    expect(calls).toEqual({ evalsha: 1, set: 2 });
    // The entry is the value, with its lifetime.
    expect(await cacheB.namespace<{ n: number }>({ name, l1: false }).then((b) => b.get('fresh'))).toEqual({ n: 1 });
  });

  it('a herd of fills on fresh keys goes out in pipelines of at most 8: leases, then writes', async () => {
    const name = tableName('herd');
    const ns = await cacheA.namespace<number>({ name, l1: false });
    // Cold keys: the miss meter sends misses straight to the lease read.
    for (let i = 0; i < 40; i++) await ns.getOrSet(`warm${String(i)}`, () => i);
    const before = connA.stats();
    const values = await Promise.all(Array.from({ length: 20 }, (_, i) => ns.getOrSet(`herd${String(i)}`, () => i)));
    const after = connA.stats();
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // 20 leases as 8 + 8 + 4, then 20 writes as 8 + 8 + 4: six pipelines, one write per 8 members.
    expect(after.pipelines - before.pipelines).toBe(6);
    expect(after.evalshaCalls - before.evalshaCalls).toBe(20);
  });

  it('a plain set of a fresh key is one script of 3 commands (SET GET, XADD); a set older than the stored frame puts it back', async () => {
    const name = tableName('setcost');
    const ns = await cacheA.namespace<{ n: number }>({ name, l1: false, ttlMs: 60_000, graceMs: 30_000 });
    await ns.set('warm', { n: 0 });
    await connA.command('CONFIG', 'RESETSTAT');
    const before = connA.stats();
    await ns.set('fresh', { n: 1 });
    const after = connA.stats();
    expect(after.commands - before.commands).toBe(1);
    expect(await commandCalls(connA)).toEqual({ evalsha: 1, set: 1, xadd: 1 });
    // Newer wins: a write whose version is older than the stored one is refused and changes nothing.
    const entry = `ecc:{${name}}:k:fresh`;
    const stored = String(await connB.command('GET', entry));
    const pttl = Number(await connB.command('PTTL', entry));
    const { execute, transitions, encodeEntryFrame } = await import('@echo/protocol/cache');
    const older = `${stored.slice(0, 3)}${'0'.repeat(11)}`;
    const written = await execute(connB, transitions.cacheWrite({ namespace: name, key: 'fresh', frame: String(encodeEntryFrame(older as never, Date.now() + 60_000, '{"n":2}')), px: 90_000, maxlen: 100, graceMs: 30_000 }));
    expect(written).toBe(false);
    expect(String(await connB.command('GET', entry))).toBe(stored);
    const left = Number(await connB.command('PTTL', entry));
    expect(left).toBeGreaterThan(60_000);
    expect(left).toBeLessThanOrEqual(pttl);
    expect(await cacheB.namespace<{ n: number }>({ name, l1: false }).then((b) => b.get('fresh'))).toEqual({ n: 1 });
  });

  it('a write that lands while a fill loads wins: the fill is refused and the write keeps its value and lifetime', async () => {
    const name = tableName('race');
    const a = await cacheA.namespace<string>({ name, l1: false, ttlMs: 60_000, graceMs: 30_000 });
    const b = await cacheB.namespace<string>({ name, l1: false, ttlMs: 60_000, graceMs: 30_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const filling = a.getOrSetEntry('k', async () => (await gate, 'loaded'));
    await until(async () => String(await connB.command('GET', `ecc:{${name}}:k:k`)).startsWith('~L'));
    await b.set('k', 'written');
    const pttl = Number(await connB.command('PTTL', `ecc:{${name}}:k:k`));
    release();
    expect(await filling).toMatchObject({ value: 'loaded', source: 'fill' });
    expect(a.stats().fillsRefused).toBe(1);
    expect(await b.get('k')).toBe('written');
    const left = Number(await connB.command('PTTL', `ecc:{${name}}:k:k`));
    expect(left).toBeGreaterThan(60_000);
    expect(left).toBeLessThanOrEqual(pttl);
  });

  it('a fill whose lease lapsed gives the entry back to the lease that followed, and that one fills', async () => {
    const name = tableName('lapse');
    const a = await cacheA.namespace<string>({ name, l1: false, leaseMs: 100 });
    const b = await cacheB.namespace<string>({ name, l1: false, leaseMs: 60_000 });
    let releaseA!: () => void;
    const gateA = new Promise<void>((resolve) => (releaseA = resolve));
    const first = a.getOrSetEntry('k', async () => (await gateA, 'a'));
    const entry = `ecc:{${name}}:k:k`;
    await until(async () => String(await connB.command('GET', entry)).startsWith('~L'));
    // A's lease frame expires with its lease; B's miss then takes the entry lease.
    await until(async () => Number(await connB.command('EXISTS', entry)) === 0);
    let releaseB!: () => void;
    const gateB = new Promise<void>((resolve) => (releaseB = resolve));
    const second = b.getOrSetEntry('k', async () => (await gateB, 'b'));
    await until(async () => String(await connB.command('GET', entry)).startsWith('~L'));
    const leaseB = String(await connB.command('GET', entry));
    releaseA();
    await first;
    expect(a.stats().fillsRefused).toBe(1);
    expect(String(await connB.command('GET', entry))).toBe(leaseB);
    expect(Number(await connB.command('PTTL', entry))).toBeGreaterThan(1000);
    releaseB();
    expect(await second).toMatchObject({ value: 'b', source: 'fill' });
    expect(await a.get('k')).toBe('b');
  });
});

describe('a refresh in grace', () => {
  it('is three round trips and 9 server commands: the plain read that found the stale frame, the lease read, one write that gives the lease back with GETDEL', async () => {
    const name = tableName('refresh');
    const ns = await cacheA.namespace<{ n: number }>({ name, l1: false, ttlMs: 30, graceMs: 60_000 });
    // Warm keys: the miss meter sends reads the plain way first (and the scripts get loaded by a first refresh).
    for (let i = 0; i < 5; i++) await ns.set(`warm${String(i)}`, { n: i });
    for (let i = 0; i < 5; i++) await ns.get(`warm${String(i)}`);
    await ns.set('k', { n: 1 });
    await ns.set('w', { n: 1 });
    const soft = Date.now() + 30;
    await until(() => Date.now() > soft + 5);
    const filled = (key: string): Promise<void> =>
      new Promise((resolve) => {
        const off = ns.on('fill', (e) => {
          if (e.key !== key) return;
          off();
          resolve();
        });
      });
    const first = filled('w');
    await ns.getOrSet('w', () => ({ n: 2 }));
    await first;
    await connA.command('CONFIG', 'RESETSTAT');
    const before = connA.stats();
    const refreshed = filled('k');
    const read = await ns.getOrSetEntry('k', () => ({ n: 2 }));
    await refreshed;
    const after = connA.stats();
    // The stale value is answered unless the (synchronous) factory wins the zero soft timeout.
    expect(read.source === 'stale' ? read.value : { source: read.source, value: read.value }).toEqual(read.source === 'stale' ? { n: 1 } : { source: 'fill', value: { n: 2 } });
    expect(after.commands - before.commands).toBe(3);
    expect(await commandCalls(connA)).toEqual({ mget: 1, evalsha: 2, get: 1, time: 1, set: 2, getdel: 1, xadd: 1 });
    // The lease is given back with the write, and the entry is the new value everywhere.
    expect(Number(await connB.command('EXISTS', `ecc:{${name}}:l:k`))).toBe(0);
    expect(await cacheB.namespace<{ n: number }>({ name, l1: false }).then((b) => b.get('k'))).toEqual({ n: 2 });
  });
});
