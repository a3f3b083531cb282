import { Connection, InvalidArgumentError, cacheKey, mintId } from '@echo/protocol/cache';
import { type RedisServer, startRedis, uniqueName } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALIDATE_CHANNEL } from '../src/coherence/tracking.js';
import { encodeFrame } from '../src/tables/frame.js';
import { Cache, TrackingArmError, type TrackingStats } from '../src/index.js';
import { tableName, until } from './helpers.js';

// Its own server: these tests FLUSHALL and kill connections, which would disturb files sharing one.
let server: RedisServer;
let conn: Connection;
let other: Redis;
let cache: Cache;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
  other = server.client();
  cache = await Cache.open({ connection: conn });
});
afterAll(async () => {
  await cache.close();
  await conn.close();
  other.disconnect();
  await server.stop();
});

const lane = (stats: { lane: unknown }): TrackingStats => stats.lane as TrackingStats;

/** Seeds an L2 frame from outside and waits for its own invalidation to pass, so a later read is clean. */
async function seed(table: { name: string; stats(): { lane: unknown } }, id: string, value: string): Promise<void> {
  const seen = lane(table.stats()).invalidations;
  await other.set(cacheKey(table.name, id as never), encodeFrame(mintId('VER'), JSON.stringify(value)), 'PX', 60_000);
  await until(() => lane(table.stats()).invalidations > seen);
}

/**
 * Writes a key no read touched under `table`'s prefix and waits until its invalidation is heard:
 * the server sends invalidations in order on one connection, so any that an earlier write caused
 * has been heard (and acted on) by then. A barrier, where a fixed sleep would only hope.
 */
async function heardBarrier(table: { name: string; stats(): { lane: unknown } }): Promise<void> {
  const before = lane(table.stats()).invalidations;
  await other.set(cacheKey(table.name, mintId('USR')), 'barrier', 'PX', 60_000);
  await until(() => lane(table.stats()).invalidations > before);
}

async function trackingClientId(name: string): Promise<string> {
  const list = String(await other.call('CLIENT', 'LIST'));
  const line = list.split('\n').find((l) => l.includes(` name=echo-cache-trk-${name} `));
  const match = /^id=(\d+) /.exec(line ?? '');
  if (!match?.[1]) throw new Error(`no tracking client for ${name}`);
  return match[1];
}

describe('tracking lane (cache.md §7.5)', () => {
  it('arms BCAST tracking with a self-redirect on a dedicated connection', async () => {
    const t = await cache.declare({ name: tableName('tr'), kind: 'USR', loader: () => 'x', coherence: 'tracking' });
    expect(lane(t.stats())).toMatchObject({ lane: 'tracking', arms: 1, armed: true });
    const id = await trackingClientId(t.name);
    const list = String(await other.call('CLIENT', 'LIST', 'ID', id));
    expect(list).toContain('flags=Pt');
    expect(list).toContain('resp=2');
    expect(list).toContain(`sub=1`);
    expect(Number(await other.call('PUBSUB', 'NUMSUB', INVALIDATE_CHANNEL).then((r) => (r as unknown[])[1]))).toBeGreaterThanOrEqual(1);
  });

  it('drops the L1 row when another client writes the key', async () => {
    const t = await cache.declare({ name: tableName('tr'), kind: 'USR', loader: () => 'loaded', coherence: 'tracking' });
    const id = mintId('USR');
    await seed(t, id, 'seeded');
    expect(await t.fetch(id)).toMatchObject({ source: 'l2', value: 'seeded' });
    expect(t.peek(id)).toBeDefined();
    await other.set(cacheKey(t.name, id), encodeFrame(mintId('VER'), '"changed"'), 'PX', 60_000);
    await until(() => t.peek(id) === undefined);
    expect(t.stats().cohApplied).toBe(1);
    expect(await t.fetch(id)).toMatchObject({ source: 'l2', value: 'changed' });
  });

  it('evicts on any write under the prefix, DEL and expiry included, and ignores other tables', async () => {
    const t = await cache.declare({ name: tableName('tr'), kind: 'USR', loader: () => 'x', coherence: 'tracking' });
    const [a, b] = [mintId('USR'), mintId('USR')];
    await seed(t, a, 'a');
    await seed(t, b, 'b');
    await Promise.all([t.fetch(a), t.fetch(b)]);
    const seen = lane(t.stats()).invalidations;
    await other.set(cacheKey(tableName('elsewhere'), a), 'x');
    await heardBarrier(t);
    expect(lane(t.stats()).invalidations).toBe(seen + 1);
    expect(t.stats().size).toBe(2);
    await other.del(cacheKey(t.name, a));
    await until(() => t.peek(a) === undefined);
    await other.pexpire(cacheKey(t.name, b), 1);
    await until(() => t.peek(b) === undefined, 3000);
  });

  it('echoes this process’s own writes: a fill leaves no L1 row, the next read is an l2 hit that stays', async () => {
    let loads = 0;
    const t = await cache.declare({ name: tableName('tr'), kind: 'USR', loader: () => `v${++loads}`, coherence: 'tracking' });
    const id = mintId('USR');
    expect((await t.fetch(id)).source).toBe('fill');
    await until(() => t.peek(id) === undefined && lane(t.stats()).invalidations >= 1);
    expect(await t.fetch(id)).toMatchObject({ source: 'l2', value: 'v1' });
    await heardBarrier(t);
    expect(await t.fetch(id)).toMatchObject({ source: 'hit', value: 'v1' });
    expect(loads).toBe(1);
  });

  it('flushes L1 on a nil invalidation (FLUSHALL)', async () => {
    const t = await cache.declare({ name: tableName('tr'), kind: 'USR', loader: () => 'x', coherence: 'tracking' });
    const id = mintId('USR');
    await seed(t, id, 's');
    await t.fetch(id);
    const flushes = lane(t.stats()).flushes;
    await other.flushall();
    await until(() => lane(t.stats()).flushes === flushes + 1);
    expect(t.stats().size).toBe(0);
  });

  it('after a reconnect flushes L1, takes no rows while unarmed, re-arms, and evicts again', async () => {
    const t = await cache.declare({ name: tableName('tr'), kind: 'USR', loader: () => 'x', coherence: 'tracking' });
    const id = mintId('USR');
    await seed(t, id, 'before');
    await t.fetch(id);
    expect(t.stats().size).toBe(1);
    await other.call('CLIENT', 'KILL', 'ID', await trackingClientId(t.name));
    await until(() => lane(t.stats()).arms === 2);
    expect(lane(t.stats()).armed).toBe(true);
    expect(t.stats().size).toBe(0);
    expect(lane(t.stats()).flushes).toBeGreaterThanOrEqual(2);
    expect(await t.fetch(id)).toMatchObject({ source: 'l2', value: 'before' });
    expect(t.peek(id)).toBeDefined();
    await other.set(cacheKey(t.name, id), encodeFrame(mintId('VER'), '"after"'));
    await until(() => t.peek(id) === undefined);
  });

  it('refuses to start when tracking cannot be armed (a configuration error)', async () => {
    const user = uniqueName('acl');
    await other.call('ACL', 'SETUSER', user, 'on', '>pw', '~*', '&*', '+@all', '-client');
    const limited = await Connection.connect({ host: server.host, port: server.port, username: user, password: 'pw' });
    try {
      const own = await Cache.open({ connection: limited });
      const name = tableName('tr');
      await expect(own.declare({ name, kind: 'USR', loader: () => 'x', coherence: 'tracking' })).rejects.toThrow(TrackingArmError);
      expect(own.has(name)).toBe(false);
    } finally {
      await limited.close();
      await other.call('ACL', 'DELUSER', user);
    }
  });

  it('is refused on a cluster connection before any I/O', async () => {
    // Only the two fields the lane reads first, and the methods Cache.open checks a connection has;
    // anything else touched (or any method called) would throw here.
    const unreachable = (): never => {
      throw new Error('no I/O expected');
    };
    const clustered = { isCluster: true, options: {}, command: unreachable, run: unreachable, duplicate: unreachable, close: unreachable } as unknown as Connection;
    const own = await Cache.open({ connection: clustered });
    await expect(own.declare({ name: tableName('tr'), kind: 'USR', loader: () => 'x', coherence: 'tracking' })).rejects.toThrow(InvalidArgumentError);
  });
});
