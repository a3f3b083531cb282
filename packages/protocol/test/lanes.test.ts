import { describe, expect, it } from 'vitest';
import { KindError } from '../src/errors/wire.js';
import { mintId, type BrandedId } from '../src/ids/index.js';
import { scripts } from '../src/scripts/catalog.js';
import { conn, Lanes, useStrictConnection, type Entry } from './lane-harness.js';

useStrictConnection();

describe('genqueue', () => {
  it('writes the four-field row, the lane member at score 0, and rings the group once with a wake', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const id = await q.add(a, 'hello');
    expect(await q.row(id)).toEqual({ state: 'pending', attempts: '0', payload: 'hello', group: a });
    expect(await q.zscores(q.k.lane(a))).toEqual([[id, 0]]);
    expect(await q.ring()).toEqual([a]);
    expect(await q.cmd('LRANGE', q.k.wake, 0, -1)).toEqual(['1']);
    // A second job keeps the ring free of duplicates (I6).
    await q.add(a);
    expect(await q.ring()).toEqual([a]);
    expect(await q.cmd('ZSCORE', q.k.pending, id)).toBeNull();
  });

  it('reports a duplicate and keeps the first payload', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const id = await q.add(a, 'first');
    const again = await conn.run(
      scripts().genqueue,
      [q.k.job(id as BrandedId), q.k.lane(a), q.k.ring, q.k.paused, q.k.glimit, q.k.gactive, q.k.wake, q.k.events, q.k.meta, q.k.journal],
      [id, 'second', a],
    );
    expect(again).toBe(0);
    expect((await q.row(id)).payload).toBe('first');
    expect(await q.cmd('ZCARD', q.k.lane(a))).toBe(1);
  });

  it('refuses a non-JOB id and a group that is not a branded id, writing nothing', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const ord = mintId('ORD');
    const keys = (id: BrandedId, g: BrandedId): string[] => [q.k.job(id), q.k.lane(g), q.k.ring, q.k.paused, q.k.glimit, q.k.gactive, q.k.wake, q.k.events, q.k.meta, q.k.journal];
    const kind = await conn.run(scripts().genqueue, keys(ord, a), [ord, 'p', a]).catch((e: unknown) => e);
    expect(kind).toBeInstanceOf(KindError);
    expect((kind as KindError).message).toContain('job id must be JOB-namespaced');
    const id = mintId('JOB');
    const bad = await conn.run(scripts().genqueue, keys(id, a), [id, 'p', 'not-a-group']).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(KindError);
    expect((bad as KindError).message).toContain('group id must be a branded id');
    expect(await q.cmd('EXISTS', q.k.job(ord), q.k.job(id), q.k.lane(a), q.k.ring)).toBe(0);
  });

  it('does not ring a paused lane or one at its ceiling', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const b = mintId('PRT');
    expect(await q.pause(a)).toBe(1);
    await q.add(a);
    expect(await q.limit(b, 1)).toBe(1);
    await q.add(b);
    const [job] = (await q.claim()) as Entry;
    expect(job).toBeDefined();
    await q.add(b);
    expect(await q.ring()).toEqual([]);
    expect(await q.depths(a, b)).toEqual([1, 1]);
  });
});

describe('gclaim', () => {
  it('12 rotate: two lanes of two are served a, b, a, b, each with token 1', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const b = mintId('PRT');
    const a1 = await q.add(a, 'a1');
    const a2 = await q.add(a, 'a2');
    const b1 = await q.add(b, 'b1');
    const b2 = await q.add(b, 'b2');
    expect(await q.ring()).toEqual([a, b]);
    const served: Entry[] = [];
    for (let i = 0; i < 4; i++) served.push((await q.claim()) as Entry);
    expect(served).toEqual([
      [a1, 'a1', 1, a],
      [b1, 'b1', 1, b],
      [a2, 'a2', 1, a],
      [b2, 'b2', 1, b],
    ]);
    expect(await q.claim()).toEqual([]);
    // Emptied lanes leave the ring; the counters hold what is in flight (I5, I6).
    expect(await q.ring()).toEqual([]);
    expect(await q.gactive()).toEqual({ [a]: '2', [b]: '2' });
    for (const [id] of served) {
      const row = await q.row(id);
      expect(row.state).toBe('active');
      expect(row.attempts).toBe('1');
      expect(Number(await q.cmd('ZSCORE', q.k.active, id))).toBeGreaterThan(Date.now());
    }
    for (const [id, , token] of served) expect(await q.complete(id, token)).toBe(1);
    expect(await q.gactive()).toEqual({});
    expect(await q.cmd('ZCARD', q.k.active)).toBe(0);
  });

  it('13 pause: a paused lane is skipped while its depth stays, and is served again after resume', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const b = mintId('PRT');
    await q.add(a);
    await q.add(a);
    await q.add(b);
    await q.add(b);
    expect(await q.pause(a)).toBe(1);
    expect(await q.cmd('SMEMBERS', q.k.paused)).toEqual([a]);
    expect(await q.ring()).toEqual([b]);
    expect(((await q.claim()) as Entry)[3]).toBe(b);
    expect(((await q.claim()) as Entry)[3]).toBe(b);
    expect(await q.claim()).toEqual([]);
    expect(await q.depths(a, b)).toEqual([2, 0]);
    await q.cmd('DEL', q.k.wake);
    expect(await q.resume(a)).toBe(1);
    expect(await q.cmd('SCARD', q.k.paused)).toBe(0);
    expect(await q.ring()).toEqual([a]);
    expect(await q.cmd('LRANGE', q.k.wake, 0, -1)).toEqual(['1']);
    const served = (await q.claim()) as Entry;
    expect(served[3]).toBe(a);
    expect(served[2]).toBe(1);
    // Resuming a lane that is already in rotation changes nothing.
    await q.resume(a);
    expect(await q.ring()).toEqual([a]);
  });

  it('14 limit: at limit 1 a second claim is empty while the first is in flight; completing it serves the next', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    expect(await q.limit(a, 1)).toBe(1);
    expect(await q.hgetall(q.k.glimit)).toEqual({ [a]: '1' });
    const a1 = await q.add(a, 'a1');
    const a2 = await q.add(a, 'a2');
    const first = (await q.claim()) as Entry;
    expect(first).toEqual([a1, 'a1', 1, a]);
    expect(await q.ring()).toEqual([]);
    expect(await q.gactive()).toEqual({ [a]: '1' });
    expect(await q.claim()).toEqual([]);
    expect(await q.depths(a)).toEqual([1]);
    expect(await q.complete(a1, 1)).toBe(1);
    expect(await q.ring()).toEqual([a]);
    expect(await q.claim()).toEqual([a2, 'a2', 1, a]);
  });

  it('honours the queue-wide pause: nothing is popped and the ring is untouched', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    await q.add(a);
    await q.cmd('HSET', q.k.meta, 'paused', '1');
    expect(await q.claim()).toEqual([]);
    expect(await q.wclaim()).toEqual([]);
    expect(await q.bclaim()).toEqual([]);
    expect(await q.depths(a)).toEqual([1]);
    expect(await q.ring()).toEqual([a]);
    expect(await q.cmd('ZCARD', q.k.active)).toBe(0);
    await q.cmd('HDEL', q.k.meta, 'paused');
    expect(((await q.claim()) as Entry)[2]).toBe(1);
  });

  it('drops a lane member that has no row, never creating a stub, and serves the next', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const ghost = mintId('JOB');
    // The ghost was admitted as any lane job is (its lane in the ring, I6) and its row then vanished.
    await q.cmd('ZADD', q.k.lane(a), 0, ghost);
    await q.cmd('RPUSH', q.k.ring, a);
    const real = await q.add(a, 'real');
    expect(await q.claim()).toEqual([real, 'real', 1, a]);
    expect(await q.cmd('EXISTS', q.k.job(ghost))).toBe(0);
    expect(await q.cmd('ZSCORE', q.k.active, ghost)).toBeNull();
    expect(await q.gactive()).toEqual({ [a]: '1' });
    expect(await q.ring()).toEqual([]);
  });

  it('de-rings a lane that came up empty', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    await q.cmd('RPUSH', q.k.ring, a);
    expect(await q.claim()).toEqual([]);
    expect(await q.ring()).toEqual([]);
    expect(await q.gactive()).toEqual({});
  });
});

describe('the ring through a mixed run (I6)', () => {
  // The hot re-rings (admission, a slot given back, a reaped job back in its lane) decide a lane's
  // membership from the change they make instead of searching the ring, so this checks after every
  // step that the ring holds exactly the serviceable lanes, each once.
  it('holds exactly the serviceable lanes, once each, after every admission, claim, settlement, reap and control', async () => {
    const q = new Lanes('lanes');
    const groups = [mintId('PRT'), mintId('PRT'), mintId('PRT'), mintId('PRT')];
    const running: Entry[] = [];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const check = async (step: string): Promise<void> => {
      const [ring, active, limits, paused, depths] = await Promise.all([
        q.ring(),
        q.gactive(),
        q.hgetall(q.k.glimit),
        q.cmd<string[]>('SMEMBERS', q.k.paused),
        q.depths(...groups),
      ]);
      const serviceable = groups.filter((g, i) => {
        const limit = limits[g];
        return (depths[i] ?? 0) > 0 && !paused.includes(g) && (limit === undefined || Number(active[g] ?? 0) < Number(limit));
      });
      expect([...ring].sort(), step).toEqual([...serviceable].sort());
      expect(new Set(ring).size, step).toBe(ring.length);
    };
    for (let step = 0; step < 400; step++) {
      const g = groups[next(groups.length)] as BrandedId;
      const op = next(10);
      if (op < 4) await q.add(g);
      else if (op < 6) {
        const entry = await q.claim(next(3) === 0 ? 1 : 30_000);
        if (entry.length > 0) running.push(entry as Entry);
      } else if (op < 8 && running.length > 0) {
        const [id, , token] = running.splice(next(running.length), 1)[0] as Entry;
        await q.complete(id, token).catch(() => undefined); // a reaped job's completion is stale
      } else if (op === 8) await q.limit(g, 1 + next(2));
      else if (next(2) === 0) await q.pause(g);
      else await q.resume(g);
      if (step % 25 === 24) for (const group of groups) await q.reapGroup(group);
      await check(`step ${step}`);
    }
  });
});

describe('lane controls', () => {
  it('glimit: lowering to the in-flight count parks the lane; raising it re-rings with a wake', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    for (let i = 0; i < 4; i++) await q.add(a);
    await q.claim();
    await q.claim();
    expect(await q.ring()).toEqual([a]);
    expect(await q.limit(a, 2)).toBe(1);
    expect(await q.ring()).toEqual([]);
    await q.cmd('DEL', q.k.wake);
    expect(await q.limit(a, 3)).toBe(1);
    expect(await q.ring()).toEqual([a]);
    expect(await q.cmd('LLEN', q.k.wake)).toBe(1);
    expect(await q.hgetall(q.k.glimit)).toEqual({ [a]: '3' });
  });

  it('gweight writes the weight and does no ring work', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    expect(await q.weight(a, 3)).toBe(1);
    expect(await q.hgetall(q.k.gweight)).toEqual({ [a]: '3' });
    expect(await q.cmd('EXISTS', q.k.ring, q.k.wake)).toBe(0);
  });

  it('the control verbs refuse a group that is not a branded id', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    for (const call of [
      // Sent raw on purpose: the typed transitions refuse 'nope' before sending; this is the script's own guard.
      () => conn.run(scripts().gweight, [q.k.gweight], ['nope', 2]),
      () => conn.run(scripts().gpause, [q.k.paused, q.k.ring], ['nope']),
      () => conn.run(scripts().gresume, [q.k.paused, q.k.ring, q.k.glimit, q.k.gactive, q.k.wake, q.k.lane(a)], ['nope']),
      () => conn.run(scripts().glimit, [q.k.glimit, q.k.gactive, q.k.ring, q.k.paused, q.k.wake, q.k.lane(a)], ['nope', 1]),
      () => conn.run(scripts().gdrain, [q.k.lane(a), q.k.ring, q.k.jobRoot, q.k.waitingChildren], ['nope']),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KindError);
      expect((error as KindError).message).toContain('group id must be a branded id');
    }
    expect(await q.cmd('EXISTS', q.k.gweight, q.k.paused, q.k.glimit)).toBe(0);
  });

  it('lane_counts reads each lane on its own, and 0 for an id that fails vid', async () => {
    const q = new Lanes('lanes');
    const a = mintId('PRT');
    const b = mintId('PRT');
    await q.add(a);
    await q.add(a);
    await q.add(b);
    expect(await q.depths(a, b, mintId('PRT'))).toEqual([2, 1, 0]);
    // The script's own answer for an id that fails vid; the typed transition refuses it before sending.
    expect(await conn.run(scripts().lane_counts, [q.k.laneRoot], [a, 'junk'])).toEqual([2, 0]);
    expect(await q.depths()).toEqual([]);
  });
});
