import { type Connection, InvalidArgumentError, InvalidNameError } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, bufferCodec, type NamespaceEvents } from '../src/index.js';
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

describe('keyed namespaces: the verbs', () => {
  it('get/set/has/delete with keys people have, and the L2 key form', async () => {
    const name = tableName('kv');
    const users = await cacheA.namespace<{ name: string }>({ name });
    expect(await users.get('user:42')).toBeUndefined();
    await users.set('user:42', { name: 'Ada' });
    await users.set('https://example.test/a?b=1#c', { name: 'url' });
    expect(await users.getEntry('user:42')).toMatchObject({ value: { name: 'Ada' }, source: 'hit' });
    expect(await users.has('user:42')).toBe(true);
    expect(await connA.command('EXISTS', `ecc:{${name}}:k:user:42`)).toBe(1);
    const other = await cacheB.namespace<{ name: string }>({ name });
    expect(await other.getEntry('https://example.test/a?b=1#c')).toMatchObject({ value: { name: 'url' }, source: 'l2' });
    expect(await users.delete('user:42')).toBe(true);
    expect(await users.get('user:42')).toBeUndefined();
    expect(await users.has('user:42')).toBe(false);
    expect(await connA.command('EXISTS', `ecc:{${name}}:k:user:42`)).toBe(0);
  });

  it('refuses bad keys, tags and options with typed errors, touching nothing', async () => {
    const ns = await cacheA.namespace<number>({ name: tableName('kv') });
    for (const bad of ['', 'a{b', 'a}b', 'a\nb', 'x'.repeat(1025)]) {
      await expect(ns.get(bad)).rejects.toThrow(InvalidArgumentError);
      await expect(ns.set(bad, 1)).rejects.toThrow(InvalidArgumentError);
    }
    await expect(ns.set('k', 1, { tags: ['t{'] })).rejects.toThrow(InvalidArgumentError);
    await expect(ns.set('k', 1, { ttlMs: -1 })).rejects.toThrow(InvalidArgumentError);
    await expect(cacheA.namespace({ name: 'bad name' })).rejects.toThrow(InvalidNameError);
    await expect(cacheA.namespace({ name: tableName('kv'), ttll: 5 } as never)).rejects.toThrow(InvalidArgumentError);
    expect(ns.stats().size).toBe(0);
  });

  it('getMany reads misses with one MGET; deleteMany deletes in one step', async () => {
    const name = tableName('kv');
    const a = await cacheA.namespace<number>({ name });
    const b = await cacheB.namespace<number>({ name });
    await Promise.all([1, 2, 3].map((n) => a.set(`k${n}`, n)));
    const before = connB.stats().commands;
    expect(await b.getMany(['k1', 'k2', 'k3', 'k4'])).toEqual([1, 2, 3, undefined]);
    expect(connB.stats().commands - before).toBe(1);
    expect(await a.deleteMany(['k1', 'k2', 'nope'])).toBe(2);
    expect(await a.getMany(['k1', 'k2', 'k3'])).toEqual([undefined, undefined, 3]);
  });

  it('getOrSet loads once per herd, caches, and reports fill then hit', async () => {
    const ns = await cacheA.namespace<string>({ name: tableName('kv') });
    let calls = 0;
    const factory = async (): Promise<string> => {
      calls++;
      await new Promise((r) => setTimeout(r, 30));
      return 'v';
    };
    const reads = await Promise.all(Array.from({ length: 20 }, () => ns.getOrSetEntry('k', factory)));
    expect(calls).toBe(1);
    expect(reads.filter((r) => r.source === 'fill')).toHaveLength(20);
    expect(await ns.getOrSetEntry('k', factory)).toMatchObject({ source: 'hit', value: 'v' });
    expect(ns.stats()).toMatchObject({ fills: 1, coalesced: 19, hits: 1 });
  });

  it('tags: deleteByTag drops tagged entries here and elsewhere, and leaves the rest', async () => {
    const name = tableName('kv');
    const a = await cacheA.namespace<number>({ name });
    const b = await cacheB.namespace<number>({ name });
    await a.set('p1', 1, { tags: ['team:7'] });
    await a.getOrSet('p2', () => 2, { tags: ['team:7', 'x'] });
    await a.set('p3', 3, { tags: ['x'] });
    expect(await b.getMany(['p1', 'p2', 'p3'])).toEqual([1, 2, 3]);
    expect(await a.deleteByTag('team:7')).toBe(2);
    expect(a.peek('p1')).toBeUndefined();
    await until(() => b.peek('p1') === undefined && b.peek('p2') === undefined);
    expect(await b.getMany(['p1', 'p2', 'p3'])).toEqual([undefined, undefined, 3]);
  });

  it('tags: an entry re-set without a tag is spared by that tag, and its stale membership goes', async () => {
    const name = tableName('kv');
    const a = await cacheA.namespace<number>({ name });
    const b = await cacheB.namespace<number>({ name });
    const tagKey = `ecc:{${name}}:tag:team:7`;
    await a.set('kept', 1, { tags: ['team:7'] });
    await b.set('kept', 2, { tags: ['other'] });
    await a.set('gone', 3, { tags: ['team:7'] });
    await a.set('gone', 4, { tags: ['team:7', 'other'] });
    await a.set('deleted', 5, { tags: ['team:7'] });
    await a.delete('deleted');
    expect(await connA.command('HLEN', tagKey)).toBe(3);
    expect(await a.deleteByTag('team:7')).toBe(1);
    expect(await a.getMany(['kept', 'gone', 'deleted'])).toEqual([2, undefined, undefined]);
    await until(() => b.peek('gone') === undefined);
    expect(await b.get('kept')).toBe(2);
    // Every field was read and judged: the stale ones went with the deleted one.
    expect(await connA.command('EXISTS', tagKey)).toBe(0);
    expect(await a.deleteByTag('other')).toBe(1);
    await until(() => b.peek('kept') === undefined);
    expect(await b.get('kept')).toBeUndefined();
  });

  it('clear empties L2 and every L1', async () => {
    const name = tableName('kv');
    const a = await cacheA.namespace<number>({ name });
    const b = await cacheB.namespace<number>({ name });
    for (let i = 0; i < 30; i++) await a.set(`c${i}`, i);
    expect(await b.get('c5')).toBe(5);
    await a.clear();
    await until(() => b.peek('c5') === undefined);
    expect(await b.get('c5')).toBeUndefined();
    expect(await connA.command('EXISTS', `ecc:{${name}}:k:c29`)).toBe(0);
  });

  it('writes carry their own coherence: a set on A drops the older row on B, newer wins', async () => {
    const name = tableName('kv');
    const a = await cacheA.namespace<string>({ name });
    const b = await cacheB.namespace<string>({ name });
    const seen: NamespaceEvents['coherence'][] = [];
    b.on('coherence', (e) => seen.push(e));
    await a.set('k', 'one');
    expect(await b.getEntry('k')).toMatchObject({ value: 'one', source: 'l2' });
    await a.set('k', 'two');
    await until(() => b.peek('k') === undefined);
    expect(await b.getEntry('k')).toMatchObject({ value: 'two', source: 'l2' });
    expect(seen[0]).toMatchObject({ op: 's', keys: ['k'], dropped: 1 });
    // A's own write comes back to A as stale: its row stays.
    expect(a.peek('k')?.value).toBe('two');
  });

  it('binary codecs round-trip through the lease script', async () => {
    const ns = await cacheA.namespace<Buffer>({ name: tableName('kv'), codec: bufferCodec });
    const bytes = Buffer.from([0, 255, 128, 10, 13, 0xc3]);
    await ns.set('b', bytes);
    const other = await cacheB.namespace<Buffer>({ name: ns.name, codec: bufferCodec });
    const read = await other.getOrSetEntry('b', () => Buffer.from('never'));
    expect(read.source).toBe('l2');
    expect(Buffer.compare(read.value, bytes)).toBe(0);
  });
});
