import { type BrandedId, type Connection, CodecError, KindError, cacheKey, mintId } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, CorruptL2FrameError, FlightCrashedError, versioned } from '../src/index.js';
import { connect, sleep, tableName } from './helpers.js';

interface User {
  readonly name: string;
  readonly n: number;
}

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

describe('fetch (cache.md §3)', () => {
  it('fills from the loader, then answers hit from L1 with the same version', async () => {
    const calls: string[] = [];
    const users = await cacheA.declare({
      name: tableName('r'),
      kind: 'USR',
      loader: (id) => {
        calls.push(id);
        return { name: 'ada', n: 1 } satisfies User;
      },
    });
    const id = mintId('USR');
    const first = await users.fetch(id);
    expect(first.source).toBe('fill');
    expect(first.value).toEqual({ name: 'ada', n: 1 });
    expect(first.version.startsWith('USR')).toBe(true);
    const second = await users.fetch(id);
    expect(second).toMatchObject({ source: 'hit', value: { name: 'ada', n: 1 }, version: first.version });
    expect(calls).toEqual([id]);
    expect(users.stats()).toMatchObject({ hits: 1, misses: 1, fills: 1, l2Hits: 0, coalesced: 0, size: 1 });
  });

  it('writes the L2 frame version ++ JSON with PX ttlMs', async () => {
    const users = await cacheA.declare({ name: tableName('r'), kind: 'USR', loader: () => ({ name: 'bob', n: 2 }), ttlMs: 60_000 });
    const id = mintId('USR');
    const { version } = await users.fetch(id);
    const key = cacheKey(users.name, id);
    const frame = (await connA.commandBuffer('GET', key)) as Buffer;
    expect(frame.toString('latin1')).toBe(`${version}{"name":"bob","n":2}`);
    const pttl = Number(await connA.command('PTTL', key));
    expect(pttl).toBeGreaterThan(59_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it('keeps the version a loader returns with versioned()', async () => {
    const version = mintId('VER');
    const users = await cacheA.declare({ name: tableName('r'), kind: 'USR', loader: () => versioned({ name: 'cy', n: 3 }, version) });
    const got = await users.fetch(mintId('USR'));
    expect(got).toEqual({ value: { name: 'cy', n: 3 }, source: 'fill', version });
  });

  it('answers l2 across two processes worth of tables, without calling the second loader', async () => {
    const name = tableName('x');
    let loadsA = 0;
    let loadsB = 0;
    const onA = await cacheA.declare({ name, kind: 'USR', loader: () => ({ name: 'a', n: ++loadsA }) });
    const onB = await cacheB.declare({ name, kind: 'USR', loader: () => ({ name: 'b', n: ++loadsB }) });
    const id = mintId('USR');
    const filled = await onA.fetch(id);
    const fromL2 = await onB.fetch(id);
    expect(fromL2).toEqual({ value: filled.value, source: 'l2', version: filled.version });
    expect(await onB.fetch(id)).toMatchObject({ source: 'hit', version: filled.version });
    expect([loadsA, loadsB]).toEqual([1, 0]);
    expect(onB.stats()).toMatchObject({ l2Hits: 1, fills: 0, hits: 1, misses: 1 });
  });

  it('applies the kind law before touching either tier', async () => {
    let loads = 0;
    const users = await cacheA.declare({ name: tableName('r'), kind: 'USR', loader: () => ++loads });
    const before = connA.stats().commands;
    for (const bad of [mintId('ORD'), 'USR0000000000', 'nonsense', 42]) {
      await expect(users.fetch(bad as BrandedId<'USR'>)).rejects.toThrow(KindError);
      await expect(users.put(bad as BrandedId<'USR'>, 1)).rejects.toThrow(KindError);
      await expect(users.invalidate(bad as BrandedId<'USR'>)).rejects.toThrow(KindError);
      expect(() => users.applyCoherence(bad as BrandedId<'USR'>, mintId('USR'))).toThrow(KindError);
    }
    expect(connA.stats().commands).toBe(before);
    expect(loads).toBe(0);
    expect(users.stats()).toMatchObject({ misses: 0, hits: 0, size: 0 });
  });

  it('refuses a corrupt L2 frame and a frame the codec cannot read, caching nothing', async () => {
    const users = await cacheA.declare({ name: tableName('r'), kind: 'USR', loader: () => 1 });
    const short = mintId('USR');
    const garbled = mintId('USR');
    await connA.command('SET', cacheKey(users.name, short), 'USR0000', 'PX', 60_000);
    await connA.command('SET', cacheKey(users.name, garbled), `${mintId('USR')}{not json`, 'PX', 60_000);
    await expect(users.fetch(short)).rejects.toThrow(CorruptL2FrameError);
    await expect(users.fetch(garbled)).rejects.toThrow(CodecError);
    expect(users.stats().size).toBe(0);
  });
});

describe('single flight (cache.md §4)', () => {
  it('makes one loader call for a herd of 50 concurrent misses, and every waiter gets the same answer', async () => {
    let calls = 0;
    const users = await cacheA.declare({
      name: tableName('sf'),
      kind: 'USR',
      loader: async () => {
        calls++;
        await sleep(30);
        return { name: 'herd', n: calls };
      },
    });
    const id = mintId('USR');
    const answers = await Promise.all(Array.from({ length: 50 }, () => users.fetch(id)));
    expect(calls).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatchObject({ source: 'fill', value: { name: 'herd', n: 1 } });
    expect(users.stats()).toMatchObject({ misses: 50, coalesced: 49, fills: 1, size: 1 });
  });

  it('coalesces a herd on the L2 read as well', async () => {
    const name = tableName('sf');
    const writer = await cacheB.declare({ name, kind: 'USR', loader: () => 'v' });
    const id = mintId('USR');
    await writer.put(id, 'v');
    let calls = 0;
    const reader = await cacheA.declare({ name, kind: 'USR', loader: () => String(++calls) });
    const answers = await Promise.all(Array.from({ length: 20 }, () => reader.fetch(id)));
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]?.source).toBe('l2');
    expect(reader.stats()).toMatchObject({ l2Hits: 1, coalesced: 19, fills: 0 });
    expect(calls).toBe(0);
  });

  it('gives every waiter the same loader error, caches nothing, and loads again next time', async () => {
    let calls = 0;
    const boom = new Error('source down');
    const users = await cacheA.declare({
      name: tableName('err'),
      kind: 'USR',
      loader: async () => {
        calls++;
        await sleep(20);
        if (calls === 1) throw boom;
        return 'recovered';
      },
    });
    const id = mintId('USR');
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => users.fetch(id)));
    expect(calls).toBe(1);
    for (const r of results) expect(r).toEqual({ status: 'rejected', reason: boom });
    expect(users.stats()).toMatchObject({ size: 0, fills: 0, coalesced: 9 });
    expect(await connA.commandBuffer('GET', cacheKey(users.name, id))).toBeNull();
    expect(await users.fetch(id)).toMatchObject({ value: 'recovered', source: 'fill' });
    expect(calls).toBe(2);
  });

  it('turns a crashed fill (a non-Error throw) into FlightCrashedError for every waiter', async () => {
    const users = await cacheA.declare({
      name: tableName('crash'),
      kind: 'USR',
      loader: async (): Promise<number> => {
        await sleep(10);
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the crash under test
        throw 'segfault';
      },
    });
    const id = mintId('USR');
    const results = await Promise.allSettled([users.fetch(id), users.fetch(id), users.fetch(id)]);
    const reasons = results.map((r) => (r as PromiseRejectedResult).reason as unknown);
    expect(new Set(reasons).size).toBe(1);
    expect(reasons[0]).toBeInstanceOf(FlightCrashedError);
    expect(reasons[0]).toMatchObject({ reason: 'segfault', code: 'flight_crashed' });
    expect(users.stats().size).toBe(0);
  });

  it('refuses a value the codec cannot encode and caches nothing', async () => {
    const users = await cacheA.declare({ name: tableName('enc'), kind: 'USR', loader: () => undefined });
    const id = mintId('USR');
    await expect(users.fetch(id)).rejects.toThrow(CodecError);
    expect(await connA.commandBuffer('GET', cacheKey(users.name, id))).toBeNull();
    expect(users.stats().size).toBe(0);
  });
});
