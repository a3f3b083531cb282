import { type Connection, cacheChannel, encodeId, mintId } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, type BroadcastStats } from '../src/index.js';
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

const publish = (channel: string, payload: string): Promise<unknown> => connA.command('PUBLISH', channel, payload);

const lane = (stats: { lane: unknown }): BroadcastStats => stats.lane as BroadcastStats;

describe('broadcast lane (cache.md §7.5)', () => {
  it('a write on A plus its coherence drops the row on B; B then reads the new value from L2', async () => {
    const name = tableName('bc');
    let version = 0;
    const a = await cacheA.declare({ name, kind: 'USR', loader: () => `v${++version}`, coherence: 'broadcast' });
    const b = await cacheB.declare({ name, kind: 'USR', loader: () => 'never', coherence: 'broadcast' });
    const id = mintId('USR');
    const first = await a.fetch(id);
    expect(await b.fetch(id)).toMatchObject({ source: 'l2', value: 'v1' });
    expect(b.peek(id)?.version).toBe(first.version);

    const written = await a.put(id, 'v2');
    expect(await a.broadcast(id, written)).toBe(2);
    await until(() => b.peek(id) === undefined);
    expect(await b.fetch(id)).toEqual({ value: 'v2', source: 'l2', version: written });
    // A hears its own message, and newer-wins answers stale for the row A just wrote.
    await until(() => lane(a.stats()).applied === 1);
    expect(a.peek(id)?.value).toBe('v2');
    expect(a.stats()).toMatchObject({ cohStale: 1, cohApplied: 0 });
    expect(b.stats()).toMatchObject({ cohApplied: 1 });
    expect(lane(b.stats())).toMatchObject({ lane: 'broadcast', published: 1, applied: 1, dropped: 0, malformed: 0, pending: 0 });
  });

  it('a late, stale message does not drop a newer row', async () => {
    const name = tableName('bc');
    const a = await cacheA.declare({ name, kind: 'USR', loader: () => 'x', coherence: 'broadcast' });
    const id = mintId('USR');
    const older = mintId('USR');
    await a.put(id, 'newer');
    await a.broadcast(id, older);
    await until(() => lane(a.stats()).applied === 1);
    expect(a.peek(id)?.value).toBe('newer');
    expect(a.stats().cohStale).toBe(1);
  });

  it('drops malformed messages and ids of another kind without applying anything', async () => {
    const name = tableName('bc');
    const b = await cacheB.declare({ name, kind: 'USR', loader: () => 'x', coherence: 'broadcast' });
    const id = mintId('USR');
    await b.put(id, 'kept', encodeId('VER', 5n));
    const channel = cacheChannel(name);
    const good = `${id}:${encodeId('VER', 6n)}`;
    for (const bad of ['', 'hello', `${id};${encodeId('VER', 6n)}`, `${id}:${encodeId('VER', 6n)}x`, `${mintId('ORD')}:${encodeId('VER', 6n)}`, `${id}:USRzzzzzzzzzzz`]) {
      await connA.command('PUBLISH', channel, bad);
    }
    await sleep(30);
    expect(b.peek(id)?.value).toBe('kept');
    expect(lane(b.stats())).toMatchObject({ malformed: 6, published: 1, applied: 0 });
    await connA.command('PUBLISH', channel, good);
    await until(() => b.peek(id) === undefined);
  });

  it('drops and counts when the ring is full, never blocking or overwriting', async () => {
    const name = tableName('bc');
    const b = await cacheB.declare({ name, kind: 'USR', loader: () => 'x', coherence: 'broadcast', ringCapacity: 4 });
    const channel = cacheChannel(name);
    const id = mintId('USR');
    const burst = Array.from({ length: 400 }, (_, i) => ['PUBLISH', channel, `${id}:${encodeId('VER', BigInt(i + 1))}`] as const);
    await connA.pipeline(burst);
    await until(() => {
      const s = lane(b.stats());
      return s.published + s.dropped === 400 && s.pending === 0;
    });
    const s = lane(b.stats());
    expect(s.dropped).toBeGreaterThan(0);
    expect(s.applied).toBe(s.published);
    expect(s.batches).toBeGreaterThanOrEqual(1);
    expect(s.wakes).toBeGreaterThanOrEqual(1);
    expect(b.stats().cohStale).toBe(s.applied);
  });

  it('applies in arrival order, in batches', async () => {
    const name = tableName('bc');
    const b = await cacheB.declare({ name, kind: 'USR', loader: () => 'x', coherence: 'broadcast' });
    const channel = cacheChannel(name);
    const ids = Array.from({ length: 300 }, () => mintId('USR'));
    for (const id of ids) await b.put(id, 'row', encodeId('VER', 10n));
    // For each id: an older message (stale), then a newer one (applied). Out of order would differ.
    const burst = ids.flatMap((id) => [
      ['PUBLISH', channel, `${id}:${encodeId('VER', 9n)}`] as const,
      ['PUBLISH', channel, `${id}:${encodeId('VER', 11n)}`] as const,
    ]);
    await connA.pipeline(burst);
    await until(() => lane(b.stats()).applied === 600);
    expect(b.stats()).toMatchObject({ size: 0, cohApplied: 300, cohStale: 300 });
    expect(lane(b.stats()).dropped).toBe(0);
  });

  it('resubscribes after its connection drops (messages sent while down are lost: at most once)', async () => {
    const name = tableName('bc');
    const b = await cacheB.declare({ name, kind: 'USR', loader: () => 'x', coherence: 'broadcast' });
    const list = String(await connA.command('CLIENT', 'LIST'));
    const line = list.split('\n').find((l) => l.includes(` name=echo-cache-coh-${name} `));
    const clientId = /^id=(\d+) /.exec(line ?? '')?.[1];
    expect(clientId).toBeDefined();
    // The subscriber is a duplicate of the caller's connection: RESP3, pub/sub as push frames.
    expect(line).toContain(' resp=3');
    await connA.command('CLIENT', 'KILL', 'ID', clientId as string);
    const id = mintId('USR');
    await b.put(id, 'row', encodeId('VER', 1n));
    await until(async () => {
      await publish(cacheChannel(name), `${id}:${encodeId('VER', 2n)}`);
      return b.peek(id) === undefined;
    });
    expect(b.stats().cohApplied).toBe(1);
  });

  it('stop unsubscribes: the lane connection is gone', async () => {
    const name = tableName('bc');
    const b = await cacheB.declare({ name, kind: 'USR', loader: () => 'x', coherence: 'broadcast' });
    expect(await connA.command('PUBSUB', 'NUMSUB', cacheChannel(name))).toEqual([cacheChannel(name), 1]);
    await b.close();
    await until(async () => ((await connA.command('PUBSUB', 'NUMSUB', cacheChannel(name))) as unknown[])[1] === 0);
  });
});
