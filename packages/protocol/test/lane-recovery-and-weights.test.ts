import { describe, expect, it } from 'vitest';
import { KindError } from '../src/errors/wire.js';
import { mintId, type BrandedId } from '../src/ids/index.js';
import { scripts } from '../src/scripts/catalog.js';
import { conn, Lanes, sleep, useStrictConnection, type Entry } from './lane-harness.js';

useStrictConnection();

describe('greassign', () => {
  it('44 reassign: moves a pending job to dst, re-rings dst, de-rings the emptied src; counters follow dst', async () => {
    const q = new Lanes('lanes');
    const src = mintId('PRT');
    const dst = mintId('PRT');
    const id = (await q.add(src, 'job')) as BrandedId;
    expect(await q.ring()).toEqual([src]);
    expect(await q.reassign(id, dst)).toBe(1);
    expect(await q.zscores(q.k.lane(dst))).toEqual([[id, 0]]);
    expect(await q.cmd('EXISTS', q.k.lane(src))).toBe(0);
    expect((await q.row(id)).group).toBe(dst);
    expect(await q.ring()).toEqual([dst]);
    expect(await q.reassign(id, dst)).toBe(0);
    const served = (await q.claim()) as Entry;
    expect(served).toEqual([id, 'job', 1, dst]);
    expect(await q.gactive()).toEqual({ [dst]: '1' });
    expect(await q.claim()).toEqual([]);
    expect(await q.complete(id, 1)).toBe(1);
    expect(await q.gactive()).toEqual({});
  });

  it('answers -1 for no row or no group and -2 for a job that is not pending in its lane; nothing changes', async () => {
    const q = new Lanes('lanes');
    const src = mintId('PRT');
    const dst = mintId('PRT');
    expect(await q.reassign(mintId('JOB'), dst)).toBe(-1);
    const flat = mintId('JOB');
    expect(await conn.run(scripts().enqueue, [q.k.job(flat), q.k.pending, q.k.events, q.k.meta, q.k.journal], [flat, 'p'])).toBe(1);
    expect(await q.reassign(flat, dst)).toBe(-1);
    const held = (await q.add(src)) as BrandedId;
    const other = await q.add(src);
    await q.claim();
    expect(await q.reassign(held, dst)).toBe(-2);
    expect((await q.row(held)).group).toBe(src);
    expect(await q.cmd('EXISTS', q.k.lane(dst))).toBe(0);
    expect(await q.ring()).toEqual([src]);
    expect(await q.depths(src)).toEqual([1]);
    expect(await q.gactive()).toEqual({ [src]: '1' });
    // The remaining one moves; src stays out of the ring once empty.
    expect(await q.reassign(other as BrandedId, dst)).toBe(1);
    expect(await q.ring()).toEqual([dst]);
    const k = q.k;
    const bad = await conn
      .run(scripts().greassign, [k.job(other as BrandedId), k.lane(src), k.ring, k.paused, k.glimit, k.gactive, k.wake, k.laneRoot], [other, 'nope'])
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(KindError);
    expect((await q.row(other)).group).toBe(dst);
  });
});

describe('gdrain', () => {
  it('45 lane_drain: deletes the waiting jobs with every sub-key, the lane and its ring entry; nothing else', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const b = mintId('PRT');
    const inFlight = await q.add(a);
    const withLogs = (await q.add(a)) as BrandedId;
    const withSubs = (await q.add(a)) as BrandedId;
    const bJob = await q.add(b);
    expect(await conn.run(scripts().repeat_register, [q.k.repeat, q.k.repeatRecord('nightly')], ['nightly', 60_000, 'tpl', 60_000])).toBe(1);
    expect(((await q.claim()) as Entry)[0]).toBe(inFlight);
    await q.cmd('RPUSH', q.k.jobSub(withLogs, 'logs'), 'line');
    for (const sub of ['lock', 'dependencies'] as const) await q.cmd('SET', q.k.jobSub(withSubs, sub), '1');
    for (const sub of ['processed', 'failed', 'unsuccessful'] as const) await q.cmd('HSET', q.k.jobSub(withSubs, sub), 'f', 'v');
    expect(await q.ring()).toEqual([b, a]);

    expect(await q.drain(a)).toBe(2);

    const gone = [withLogs, withSubs].flatMap((id) => [
      q.k.job(id),
      ...(['logs', 'lock', 'dependencies', 'processed', 'failed', 'unsuccessful'] as const).map((s) => q.k.jobSub(id, s)),
    ]);
    expect(await q.cmd('EXISTS', ...gone)).toBe(0);
    expect(await q.cmd('EXISTS', q.k.lane(a))).toBe(0);
    expect(await q.ring()).toEqual([b]);
    expect((await q.row(inFlight)).state).toBe('active');
    expect(await q.cmd('ZSCORE', q.k.active, inFlight)).not.toBeNull();
    expect(await q.gactive()).toEqual({ [a]: '1' });
    expect((await q.row(bJob)).state).toBe('pending');
    expect(await q.depths(b)).toEqual([1]);
    expect(await q.cmd('ZCARD', q.k.repeat)).toBe(1);

    expect(await q.drain(mintId('PRT'))).toBe(0);
    expect(await q.ring()).toEqual([b]);
  });
});

describe('greap_group', () => {
  it('46 reap_group: recovers only g`s lapsed job into its lane at score 0 and frees its slot', async () => {
    const q = new Lanes('lanes');
    const g = mintId('PRT');
    const h = mintId('PRT');
    const gJob = await q.add(g, 'g');
    const hJob = await q.add(h, 'h');
    expect(((await q.claim(30)) as Entry)[0]).toBe(gJob);
    expect(((await q.claim(30)) as Entry)[0]).toBe(hJob);
    await sleep(60);
    expect(await q.reapGroup(g)).toBe(1);
    expect(await q.zscores(q.k.lane(g))).toEqual([[gJob, 0]]);
    expect((await q.row(gJob)).state).toBe('pending');
    expect(await q.cmd('ZSCORE', q.k.active, gJob)).toBeNull();
    expect(await q.gactive()).toEqual({ [h]: '1' });
    expect((await q.row(hJob)).state).toBe('active');
    expect(await q.cmd('ZSCORE', q.k.active, hJob)).not.toBeNull();
    expect(await q.ring()).toEqual([g]);

    const again = (await q.claim()) as Entry;
    expect(again).toEqual([gJob, 'g', 2, g]);
    expect(await q.complete(gJob, 2)).toBe(1);
    expect(await q.gactive()).toEqual({ [h]: '1' });

    expect(await q.reapGroup(mintId('PRT'))).toBe(0);
    const k = q.k;
    const junk = await conn.run(scripts().greap_group, [k.active, k.lane(g), k.gactive, k.glimit, k.ring, k.wake, k.paused, k.jobRoot], ['junk', 10]);
    expect(junk).toBe(0);
    expect(await q.cmd('ZSCORE', q.k.active, hJob)).not.toBeNull();
  });

  it('finds g`s lapses behind other groups` and stops at the limit', async () => {
    const q = new Lanes('lanes');
    const g = mintId('PRT');
    const h = mintId('PRT');
    for (let i = 0; i < 3; i++) await q.add(h);
    for (let i = 0; i < 3; i++) await q.add(g);
    expect((await q.bclaim(20)).length).toBe(3);
    expect((await q.bclaim(20)).length).toBe(3);
    await sleep(50);
    expect(await q.reapGroup(g, 2)).toBe(2);
    expect(await q.gactive()).toEqual({ [g]: '1', [h]: '3' });
    expect(await q.depths(g, h)).toEqual([2, 0]);
    expect(await q.reapGroup(g, 2)).toBe(1);
    expect(await q.gactive()).toEqual({ [h]: '3' });
  });
});

describe('gwclaim', () => {
  it('serves K = weight from the one rotated lane under one deadline, then rotates', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const b = mintId('PRT');
    for (let i = 0; i < 5; i++) await q.add(a);
    for (let i = 0; i < 5; i++) await q.add(b);
    await q.weight(a, 3);
    const first = await q.wclaim();
    expect(first.map((e) => e[3])).toEqual([a, a, a]);
    expect(first.every((e) => e[2] === 1)).toBe(true);
    const scores = await Promise.all(first.map(([id]) => q.cmd<string>('ZSCORE', q.k.active, id)));
    expect(new Set(scores).size).toBe(1);
    expect(await q.gactive()).toEqual({ [a]: '3' });
    expect((await q.wclaim()).map((e) => e[3])).toEqual([b]);
  });

  it('never passes the ceiling, and de-rings a lane that has no room', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    for (let i = 0; i < 5; i++) await q.add(a);
    await q.weight(a, 4);
    await q.limit(a, 2);
    expect((await q.wclaim()).length).toBe(2);
    expect(await q.gactive()).toEqual({ [a]: '2' });
    expect(await q.ring()).toEqual([]);
    // Forced back into the ring while full: the claim de-rings it and serves nothing.
    await q.cmd('RPUSH', q.k.ring, a);
    expect(await q.wclaim()).toEqual([]);
    expect(await q.ring()).toEqual([]);
    expect(await q.depths(a)).toEqual([3]);
  });

  it('60 weighted_proportion: 3:1 over 40 claims serves the light lane and gives heavy 2x..4x', async () => {
    const q = new Lanes('lanes');
    const heavy = mintId('PRT');
    const light = mintId('PRT');
    for (let i = 0; i < 60; i++) await q.add(heavy);
    for (let i = 0; i < 60; i++) await q.add(light);
    await q.weight(heavy, 3);
    await q.weight(light, 1);
    const count = { [heavy]: 0, [light]: 0 };
    for (let i = 0; i < 40; i++) {
      for (const [id, , , g] of await q.wclaim()) {
        expect(await q.cmd('ZSCORE', q.k.active, id)).not.toBeNull();
        count[g] = (count[g] ?? 0) + 1;
      }
    }
    const h = count[heavy] ?? 0;
    const l = count[light] ?? 0;
    expect(l).toBeGreaterThanOrEqual(1);
    expect(h).toBeGreaterThanOrEqual(2 * l);
    expect(h).toBeLessThanOrEqual(4 * l);
  });

  it('61 starvation_drill: within 9 weighted claims both light lanes are served; draining empties every lane', async () => {
    const q = new Lanes('lanes');
    const heavy = mintId('PRT');
    const l1 = mintId('PRT');
    const l2 = mintId('PRT');
    for (let i = 0; i < 200; i++) await q.add(heavy);
    for (let i = 0; i < 6; i++) await q.add(l1);
    for (let i = 0; i < 6; i++) await q.add(l2);
    await q.weight(heavy, 5);
    await q.weight(l1, 1);
    await q.weight(l2, 1);
    const seen = new Set<string>();
    for (let i = 0; i < 9; i++) {
      for (const [id, , token, g] of await q.wclaim()) {
        seen.add(g);
        expect(await q.complete(id, token)).toBe(1);
      }
    }
    expect(seen.has(l1)).toBe(true);
    expect(seen.has(l2)).toBe(true);
    await q.drainAll(() => q.wclaim());
    expect(await q.depths(heavy, l1, l2)).toEqual([0, 0, 0]);
    expect(await q.ring()).toEqual([]);
    expect(await q.gactive()).toEqual({});
  });
});

describe('gbclaim', () => {
  it('68 grouped_batch_affinity: one batch comes from the one rotated lane, token 1, one deadline', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const b = mintId('PRT');
    for (let i = 0; i < 10; i++) {
      await q.add(a);
      await q.add(b);
    }
    const batch = await q.bclaim();
    expect(batch.length).toBe(10);
    const g = batch[0]?.[3] as string;
    expect(g).toBe(a);
    for (const [id, , token, group] of batch) {
      expect(group).toBe(g);
      expect(token).toBe(1);
      expect((await q.row(id)).group).toBe(g);
    }
    const scores = await Promise.all(batch.map(([id]) => q.cmd<string>('ZSCORE', q.k.active, id)));
    expect(new Set(scores).size).toBe(1);
    expect(await q.gactive()).toEqual({ [a]: '10' });
    expect(await q.ring()).toEqual([b]);
  });

  it('69 grouped_batch_ceiling: limit 3 with 8 jobs gives exactly 3; the next is empty until one completes', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    await q.limit(a, 3);
    for (let i = 0; i < 8; i++) await q.add(a);
    const batch = await q.bclaim();
    expect(batch.length).toBe(3);
    expect(await q.gactive()).toEqual({ [a]: '3' });
    expect(await q.bclaim()).toEqual([]);
    const [id, , token] = batch[0] as Entry;
    expect(await q.complete(id, token)).toBe(1);
    expect(await q.gactive()).toEqual({ [a]: '2' });
    const next = await q.bclaim();
    expect(next.length).toBe(1);
    expect(await q.gactive()).toEqual({ [a]: '3' });
    expect(await q.depths(a)).toEqual([4]);
  });

  it('70 grouped_batch_fairness: with limit 2 each, both light lanes are served within 9 batches; all drain to 0', async () => {
    const q = new Lanes('lanes');
    const heavy = mintId('PRT');
    const l1 = mintId('PRT');
    const l2 = mintId('PRT');
    for (const g of [heavy, l1, l2]) await q.limit(g, 2);
    for (let i = 0; i < 40; i++) await q.add(heavy);
    for (let i = 0; i < 4; i++) await q.add(l1);
    for (let i = 0; i < 4; i++) await q.add(l2);
    const seen = new Set<string>();
    for (let i = 0; i < 9; i++) {
      const batch = await q.bclaim();
      expect(batch.length).toBeLessThanOrEqual(2);
      for (const [id, , token, g] of batch) {
        seen.add(g);
        expect(await q.complete(id, token)).toBe(1);
      }
    }
    expect(seen.has(l1)).toBe(true);
    expect(seen.has(l2)).toBe(true);
    await q.drainAll(() => q.bclaim());
    expect(await q.depths(heavy, l1, l2)).toEqual([0, 0, 0]);
    expect(await q.gactive()).toEqual({});
    expect(await q.ring()).toEqual([]);
  });
});
