import { type Connection, mintId } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { connect, manualClock, tableName, until } from './helpers.js';

let conn: Connection;
beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});

describe('jittered expiry (cache.md §6)', () => {
  it('places expiresAt at now + ttlMs + U with U at both ends of [-spread, +spread]', async () => {
    const clock = manualClock();
    let next = 0;
    const cache = await Cache.open({ connection: conn, now: clock.now, random: () => next });
    const t = await cache.declare({ name: tableName('j'), kind: 'USR', loader: () => 1, ttlMs: 1000, jitter: 0.2 });
    const low = mintId('USR');
    const high = mintId('USR');
    const mid = mintId('USR');
    next = 0;
    await t.fetch(low);
    next = 0.9999999;
    await t.fetch(high);
    next = 0.5;
    await t.fetch(mid);
    // spread = trunc(1000 × 0.2) = 200
    expect(t.peek(low)?.expiresAt).toBe(clock.now() + 800);
    expect(t.peek(high)?.expiresAt).toBe(clock.now() + 1200);
    expect(t.peek(mid)?.expiresAt).toBe(clock.now() + 1000);
    await cache.close();
  });

  it('answers hit until expiresAt, then refills from L2', async () => {
    const clock = manualClock();
    const cache = await Cache.open({ connection: conn, now: clock.now, random: () => 0 });
    let loads = 0;
    const t = await cache.declare({ name: tableName('j'), kind: 'USR', loader: () => ++loads, ttlMs: 60_000, jitter: 0 });
    const id = mintId('USR');
    await t.fetch(id);
    clock.advance(59_999);
    expect((await t.fetch(id)).source).toBe('hit');
    clock.advance(1);
    // The L1 row is past its expiry; the L2 row, on the server's own clock, is not.
    expect(await t.fetch(id)).toMatchObject({ source: 'l2', value: 1 });
    expect(loads).toBe(1);
    await cache.close();
  });

  it('sweeps expired rows every sweepMs, counting swept and sweeps', async () => {
    const clock = manualClock();
    const cache = await Cache.open({ connection: conn, now: clock.now });
    const t = await cache.declare({ name: tableName('sw'), kind: 'USR', loader: () => 1, ttlMs: 100, jitter: 0, sweepMs: 10 });
    await Promise.all([t.fetch(mintId('USR')), t.fetch(mintId('USR')), t.fetch(mintId('USR'))]);
    expect(t.stats().size).toBe(3);
    await until(() => t.stats().sweeps >= 2);
    // Nothing expired yet, so nothing was swept.
    expect(t.stats()).toMatchObject({ size: 3, swept: 0 });
    clock.advance(101);
    await until(() => t.stats().size === 0);
    expect(t.stats().swept).toBe(3);
    await cache.close();
  });
});

describe('a full cache (cache.md §6)', () => {
  it('skips the insert, counts full_skips, and still answers the caller', async () => {
    const clock = manualClock();
    const cache = await Cache.open({ connection: conn, now: clock.now });
    let loads = 0;
    const t = await cache.declare({ name: tableName('full'), kind: 'USR', loader: () => ++loads, maxSize: 2, ttlMs: 60_000, jitter: 0 });
    const [a, b, c] = [mintId('USR'), mintId('USR'), mintId('USR')];
    await t.fetch(a);
    await t.fetch(b);
    expect(await t.fetch(c)).toMatchObject({ source: 'fill', value: 3 });
    expect(t.stats()).toMatchObject({ size: 2, fullSkips: 1 });
    expect(t.peek(c)).toBeUndefined();
    // Pass-through: c is read again from L2 each time, never from L1.
    expect(await t.fetch(c)).toMatchObject({ source: 'l2', value: 3 });
    expect(t.stats()).toMatchObject({ size: 2, fullSkips: 2 });
    // A live row is never evicted to make room.
    expect((await t.fetch(a)).source).toBe('hit');
    // Replacing a held row does not need room.
    await t.put(a, 99);
    expect(await t.fetch(a)).toMatchObject({ source: 'hit', value: 99 });
    expect(t.stats().fullSkips).toBe(2);
    await cache.close();
  });

  it('reclaims expired rows to make room before skipping', async () => {
    const clock = manualClock();
    const cache = await Cache.open({ connection: conn, now: clock.now });
    const t = await cache.declare({ name: tableName('full'), kind: 'USR', loader: () => 1, maxSize: 2, ttlMs: 1000, jitter: 0, sweepMs: 3_600_000 });
    await t.fetch(mintId('USR'));
    clock.advance(500);
    await t.fetch(mintId('USR'));
    clock.advance(501);
    const fresh = mintId('USR');
    await t.fetch(fresh);
    expect(t.peek(fresh)).toBeDefined();
    expect(t.stats()).toMatchObject({ size: 2, swept: 1, fullSkips: 0, sweeps: 0 });
    await cache.close();
  });
});
