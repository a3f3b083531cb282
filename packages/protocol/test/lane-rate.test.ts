import { waitFor } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { KindError } from '../src/errors/wire.js';
import { mintId } from '../src/ids/index.js';
import { scripts } from '../src/scripts/catalog.js';
import * as t from '../src/transitions/index.js';
import { execute } from '../src/transitions/transition.js';
import { conn, Lanes, useStrictConnection, type Entry } from './lane-harness.js';

useStrictConnection();

describe('grate [TS]: a lane`s own rate limit', () => {
  it('writes max:duration per lane, lifts it with 0, and refuses a group that is not a branded id', async () => {
    const q = new Lanes('grate');
    const a = mintId('PRT');
    expect(await q.rate(a, { max: 3, durationMs: 1000 })).toBe(1);
    expect(await q.hgetall(q.k.grate)).toEqual({ [a]: '3:1000' });
    expect(await q.rate(a, null)).toBe(1);
    expect(await q.cmd('EXISTS', q.k.grate)).toBe(0);
    // A lane out of rotation wakes nobody; one in rotation wakes a consumer when its limit changes.
    expect(await q.cmd('LLEN', q.k.wake)).toBe(0);
    await q.add(a);
    await q.cmd('DEL', q.k.wake);
    await q.rate(a, null);
    expect(await q.cmd('LRANGE', q.k.wake, 0, -1)).toEqual(['1']);
    const bad = await conn.run(scripts().grate, [q.k.grate, q.k.ring, q.k.wake], ['nope', '3', '1000']).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(KindError);
    expect(await q.cmd('EXISTS', q.k.grate)).toBe(0);
  });

  it('gclaim passes over a lane out of budget, keeps it in rotation, and serves it again when its window reopens', async () => {
    const q = new Lanes('grate');
    const a = mintId('PRT');
    const b = mintId('PRT');
    for (let i = 0; i < 5; i++) await q.add(a);
    for (let i = 0; i < 5; i++) await q.add(b);
    await q.rate(a, { max: 2, durationMs: 400 });
    const groups: string[] = [];
    for (let i = 0; i < 6; i++) {
      const e = (await q.claim()) as Entry;
      groups.push(e[3]);
    }
    // a is served twice, then every claim goes to b; a stays in the ring.
    expect(groups.filter((g) => g === a)).toHaveLength(2);
    expect(groups.filter((g) => g === b)).toHaveLength(4);
    expect(await q.ring()).toContain(a);
    expect((await q.hgetall(q.k.grate))[a]).toMatch(/^2:400:\d+:2$/);
    // b has one job left; then only a (out of budget) remains: nothing is claimable.
    expect(((await q.claim()) as Entry)[3]).toBe(b);
    expect(await q.claim()).toEqual([]);
    // The window reopens by the server's clock (its end is the third field): wait for that clock to
    // reach it rather than for a guessed pause on ours.
    const ends = Number(((await q.hgetall(q.k.grate))[a] ?? '').split(':')[2]);
    await waitFor(async () => {
      const [seconds, micros] = await q.cmd<[string, string]>('TIME');
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) >= ends;
    }, { what: 'the lane`s window to end' });
    expect(((await q.claim()) as Entry)[3]).toBe(a);
    expect((await q.hgetall(q.k.grate))[a]).toMatch(/^2:400:\d+:1$/);
  });

  it('gwclaim and gbclaim lease at most the lane`s room in its window', async () => {
    const q = new Lanes('grate');
    const a = mintId('PRT');
    for (let i = 0; i < 8; i++) await q.add(a);
    await q.weight(a, 5);
    await q.rate(a, { max: 3, durationMs: 60_000 });
    expect(await q.wclaim()).toHaveLength(3);
    expect(await q.wclaim()).toHaveLength(0);
    expect(await q.bclaim()).toHaveLength(0);
    // A fresh limit starts a fresh window.
    await q.rate(a, { max: 4, durationMs: 60_000 });
    expect(await q.bclaim()).toHaveLength(4);
    expect(await q.bclaim()).toHaveLength(0);
    await q.rate(a, null);
    expect(await q.bclaim()).toHaveLength(1);
  });

  it('composes with the queue`s limiter: the smaller room wins, and both count', async () => {
    const q = new Lanes('grate');
    const a = mintId('PRT');
    for (let i = 0; i < 8; i++) await q.add(a);
    await execute(conn, t.setGates({ queue: q.k.queue, limiter: { max: 2, durationMs: 60_000 } }));
    await q.rate(a, { max: 5, durationMs: 60_000 });
    expect(await q.bclaim()).toHaveLength(2);
    expect(await q.cmd('GET', q.k.limiter)).toBe('2');
    expect((await q.hgetall(q.k.grate))[a]).toMatch(/:2$/);
    expect(await q.bclaim()).toHaveLength(0);
  });

  it('gbclaim [TS] takes an optional size: at most that many of the lane`s jobs', async () => {
    const q = new Lanes('grate');
    const a = mintId('PRT');
    for (let i = 0; i < 7; i++) await q.add(a);
    const take = async (size: number): Promise<number> => (await execute(conn, t.laneBatchClaim({ queue: q.k.queue, leaseMs: 30_000, size }))).length;
    expect(await take(3)).toBe(3);
    expect(await take(3)).toBe(3);
    expect(await take(3)).toBe(1);
    expect(await q.bclaim()).toHaveLength(0);
  });

  it('gbclaim with a size [TS] scales each lane`s batch by its weight against the heaviest', async () => {
    const q = new Lanes('grate');
    const heavy = mintId('PRT');
    const light = mintId('PRT');
    for (let i = 0; i < 40; i++) await q.add(heavy);
    for (let i = 0; i < 40; i++) await q.add(light);
    await q.weight(heavy, 3);
    const sizes = new Map<string, number[]>();
    for (let i = 0; i < 4; i++) {
      const rows = await execute(conn, t.laneBatchClaim({ queue: q.k.queue, leaseMs: 30_000, size: 12 }));
      const g = rows[0]?.group as string;
      sizes.set(g, [...(sizes.get(g) ?? []), rows.length]);
    }
    expect(sizes.get(heavy)).toEqual([12, 12]);
    expect(sizes.get(light)).toEqual([4, 4]);
  });

  it('costs a lane without a limit nothing: no grate key is written by claims', async () => {
    const q = new Lanes('grate');
    const a = mintId('PRT');
    await q.add(a);
    expect(await q.claim()).toHaveLength(4);
    expect(await q.cmd('EXISTS', q.k.grate)).toBe(0);
  });
});


