import type { Connection } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { collectGarbage, connect, tableName, until } from './helpers.js';

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

describe('the read path off L1', () => {
  it('a getOrSet that finds fresh entries in L2 costs one MGET per 8 keys of the tick, and no script', async () => {
    const name = tableName('l2p');
    const writer = await cacheA.namespace<{ n: number }>({ name });
    await Promise.all(Array.from({ length: 50 }, (_, i) => writer.set(`k${String(i)}`, { n: i })));
    const reader = await cacheB.namespace<{ n: number }>({ name, l1: false });
    const before = connB.stats();
    let loads = 0;
    const reads = await Promise.all(Array.from({ length: 50 }, (_, i) => reader.getOrSetEntry(`k${String(i)}`, () => ({ n: (loads++, -1) }))));
    const after = connB.stats();
    expect(loads).toBe(0);
    expect(reads.map((r) => r.value.n)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(reads.every((r) => r.source === 'l2')).toBe(true);
    expect(after.evalshaCalls - before.evalshaCalls).toBe(0);
    // 50 keys: six full batches, sent as each fills, and the tick's last 2.
    expect(after.commands - before.commands).toBe(7);
  });

  it('where reads mostly miss, a miss goes straight to the lease read; once entries are found again, the plain read comes back', async () => {
    const name = tableName('meter');
    const ns = await cacheB.namespace<number>({ name, l1: false });
    for (let i = 0; i < 40; i++) await ns.getOrSet(`cold${String(i)}`, () => i);
    let before = connB.stats();
    await ns.getOrSet('cold-last', () => 1);
    let after = connB.stats();
    // The lease read (a plain SET NX GET) and the fill (one script), no MGET.
    expect(after.commands - before.commands).toBe(2);
    expect(after.evalshaCalls - before.evalshaCalls).toBe(1);
    const writer = await cacheA.namespace<number>({ name });
    for (let i = 0; i < 60; i++) await writer.set(`warm${String(i)}`, i);
    for (let i = 0; i < 59; i++) expect(await ns.getOrSet(`warm${String(i)}`, () => -1)).toBe(i);
    before = connB.stats();
    expect(await ns.getOrSet('warm59', () => -1)).toBe(59);
    after = connB.stats();
    expect(after.evalshaCalls - before.evalshaCalls).toBe(0);
    expect(after.commands - before.commands).toBe(1);
  });

  it('a missing entry still takes the lease: one load across two processes', async () => {
    const name = tableName('l2m');
    const [a, b] = [await cacheA.namespace<number>({ name, l1: false }), await cacheB.namespace<number>({ name, l1: false })];
    let loads = 0;
    // The load holds until the other caller waits on its lease (the lease frame marked waited), so
    // however slow the machine, the second caller cannot arrive after the fill.
    const slow = async (): Promise<number> => {
      loads++;
      await until(async () => String(await connA.command('GET', `ecc:{${name}}:k:k`)).startsWith('~Lw'));
      return 7;
    };
    const [x, y] = await Promise.all([a.getOrSetEntry('k', slow), b.getOrSetEntry('k', slow)]);
    expect([x.value, y.value]).toEqual([7, 7]);
    expect(loads).toBe(1);
    expect([x.source, y.source].sort()).toEqual(['fill', 'peer']);
  });

  it('lease tokens share a per-process prefix and differ by a counter', async () => {
    const name = tableName('tok');
    const ns = await cacheA.namespace<number>({ name });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const loads = [ns.getOrSet('a', async () => (await gate, 1)), ns.getOrSet('b', async () => (await gate, 2))];
    // A miss's lease is a frame in the entry itself: `~L`, a waited flag, its end (13 digits), the token.
    const leases = [`ecc:{${name}}:k:a`, `ecc:{${name}}:k:b`];
    const frames = async (): Promise<string[]> => (await Promise.all(leases.map((key) => connA.command('GET', key)))).map(String);
    await until(async () => (await frames()).every((f) => f.startsWith('~L')));
    const [ta, tb] = (await frames()).map((f) => f.slice(16)) as [string, string];
    release();
    await Promise.all(loads);
    expect(ta).not.toBe(tb);
    expect(ta.slice(0, 12)).toBe(tb.slice(0, 12));
  });
});

describe('read modes freeze or copy only where a value is shared', () => {
  it('without an L1, a value read by one caller is its own; callers sharing one load share it frozen, or get copies under clone', async () => {
    const name = tableName('nofreeze');
    await (await cacheA.namespace<{ list: number[] }>({ name })).set('k', { list: [1] });
    const reader = await cacheB.namespace<{ list: number[] }>({ name, l1: false });
    const read = await reader.get('k');
    expect(Object.isFrozen(read)).toBe(false);
    const [x, y] = await Promise.all([reader.getOrSet('k', () => ({ list: [] })), reader.getOrSet('k', () => ({ list: [] }))]);
    expect(reader.stats().coalesced).toBe(1);
    expect(x).toEqual({ list: [1] });
    // One decode for both, frozen before either caller resumes: no copy per caller.
    expect(x).toBe(y);
    expect(Object.isFrozen(x) && Object.isFrozen(x.list)).toBe(true);
    expect(() => x.list.push(2)).toThrow(TypeError);
    const cloning = await cacheA.namespace<{ list: number[] }>({ name: tableName('clonejoin'), l1: false, read: 'clone' });
    await cloning.set('k', { list: [1] });
    const [p, q] = await Promise.all([cloning.getOrSet('k', () => ({ list: [] })), cloning.getOrSet('k', () => ({ list: [] }))]);
    expect(p).toEqual({ list: [1] });
    expect(p).not.toBe(q);
    p.list.push(2);
    expect(q.list).toEqual([1]);
  });

  it('frozen mode: a written value is decoded once, at its first hit: frozen, shared by later hits, untouched by its writer', async () => {
    const ns = await cacheA.namespace<{ list: number[] }>({ name: tableName('frozen') });
    const mine = { list: [1] };
    await ns.set('k', mine);
    mine.list.push(99);
    const filled = await ns.getOrSet('f', () => ({ list: [5] }));
    filled.list.push(6);
    const first = await ns.get('k');
    expect(first).toEqual({ list: [1] });
    expect(Object.isFrozen(first) && Object.isFrozen(first?.list)).toBe(true);
    expect(await ns.get('k')).toBe(first);
    expect(await ns.get('f')).toEqual({ list: [5] });
    expect(ns.peek('f')?.encoded).toBeUndefined();
  });

  it('L1 keeps the encoding of a value written here, not its writer\'s object: a set or filled object its writer drops is collected', async () => {
    for (const read of ['frozen', 'clone'] as const) {
      const ns = await cacheA.namespace<{ list: number[] }>({ name: tableName(`owned-${read}`), read });
      const refs = await (async () => {
        const set = { list: [1] };
        const filled = { list: [2] };
        await ns.set('s', set);
        await ns.getOrSet('f', () => filled);
        return [new WeakRef(set), new WeakRef(filled)];
      })();
      await collectGarbage();
      expect(refs.map((ref) => ref.deref()), read).toEqual([undefined, undefined]);
      // What hits hand out is decoded from the kept encoding.
      expect([await ns.get('s'), await ns.get('f')]).toEqual([{ list: [1] }, { list: [2] }]);
      expect(ns.stats().hits).toBe(2);
    }
  });

  it('clone mode: each hit is a fresh copy of what was written, untouched by later mutation of any object', async () => {
    const ns = await cacheA.namespace<{ list: number[] }>({ name: tableName('clone'), read: 'clone' });
    const mine = { list: [1] };
    await ns.set('k', mine);
    mine.list.push(99);
    const first = await ns.get('k');
    expect(first).toEqual({ list: [1] });
    first?.list.push(2);
    const second = await ns.get('k');
    expect(second).toEqual({ list: [1] });
    expect(second).not.toBe(first);
    const filled = await ns.getOrSet('f', () => ({ list: [5] }));
    filled.list.push(6);
    expect(await ns.get('f')).toEqual({ list: [5] });
  });

  it('clone mode: a hit copies records read from L2 deeply, own `__proto__` keys included, and no copy shares an object', async () => {
    const name = tableName('clonerec');
    const writer = await cacheB.namespace<unknown>({ name });
    const text = '{"items":[{"id":1,"roles":["a"],"at":{"city":"x"},"ok":true,"none":null,"__proto__":{"polluted":1}}],"total":1.5}';
    await writer.set('k', JSON.parse(text));
    const ns = await cacheA.namespace<{ items: { roles: string[]; at: { city: string } }[] }>({ name, read: 'clone' });
    const reads = [await ns.get('k'), await ns.get('k'), await ns.get('k')];
    for (const read of reads) {
      // Each copy is what JSON.parse of the written text gives, an own `__proto__` key and all.
      expect(read).toStrictEqual(JSON.parse(text));
      expect(Object.getPrototypeOf(read?.items[0])).toBe(Object.prototype);
      expect(Object.keys(read?.items[0] ?? {})).toContain('__proto__');
    }
    const [a, b, c] = reads;
    a?.items[0]?.roles.push('mutated');
    if (b?.items[0] !== undefined) b.items[0].at.city = 'mutated';
    expect(c).toStrictEqual(JSON.parse(text));
    expect(await ns.get('k')).toStrictEqual(JSON.parse(text));
    expect(a?.items).not.toBe(c?.items);
  });
});
