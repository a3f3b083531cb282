import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { KindError } from '../src/errors/wire.js';
import { mintId, type BrandedId } from '../src/ids/index.js';
import { queueKeys, type QueueKeys } from '../src/keys/index.js';
import { scripts } from '../src/scripts/catalog.js';

/** One claimed lane job as the lane claims return it: {id, payload, attempts, g}. */
type Entry = [string, string, number, string];

let conn: Connection;

beforeAll(async () => {
  const server = await useRedis();
  // Strict: every script runs through the key-law checker, so an undeclared key fails the test.
  conn = await Connection.connect({ url: server.url, strictKeys: true });
  expect(conn.options.strictKeys).toBe(true);
});

afterAll(async () => {
  await conn.close();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The lane verbs of one fresh queue, each a single script call with the catalog's key order. */
class Lanes {
  readonly k: QueueKeys;

  constructor(prefix: string) {
    this.k = queueKeys(uniqueName(prefix));
  }

  cmd<T = unknown>(name: string, ...args: (string | number)[]): Promise<T> {
    return conn.command(name, ...args) as Promise<T>;
  }

  async add(g: BrandedId, payload = 'p', id: BrandedId = mintId('JOB')): Promise<string> {
    const k = this.k;
    const r = await conn.run(scripts().genqueue, [k.job(id), k.lane(g), k.ring, k.paused, k.glimit, k.gactive, k.wake], [id, payload, g]);
    expect(r).toBe(1);
    return id;
  }

  private claimKeys(): string[] {
    const k = this.k;
    return [k.ring, k.active, k.meta, k.gactive, k.glimit, k.jobRoot, k.laneRoot];
  }

  async claim(leaseMs = 30_000): Promise<Entry | []> {
    return (await conn.run(scripts().gclaim, this.claimKeys(), [leaseMs])) as Entry | [];
  }

  async wclaim(leaseMs = 30_000): Promise<Entry[]> {
    return (await conn.run(scripts().gwclaim, [...this.claimKeys(), this.k.gweight], [leaseMs])) as Entry[];
  }

  async bclaim(leaseMs = 30_000): Promise<Entry[]> {
    return (await conn.run(scripts().gbclaim, this.claimKeys(), [leaseMs])) as Entry[];
  }

  async complete(id: string, token: number | string): Promise<unknown> {
    const k = this.k;
    return conn.run(
      scripts().complete,
      [k.active, k.pending, k.schedule, k.dead, k.job(id as BrandedId), k.metricsCompleted, k.gactive, k.glimit, k.ring, k.wake, k.paused, k.laneRoot, k.jobRoot, k.events],
      [id, String(token), '', '', '', ''],
    );
  }

  weight(g: string, w: number): Promise<unknown> {
    return conn.run(scripts().gweight, [this.k.gweight], [g, w]);
  }

  pause(g: string): Promise<unknown> {
    return conn.run(scripts().gpause, [this.k.paused, this.k.ring], [g]);
  }

  resume(g: BrandedId): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().gresume, [k.paused, k.ring, k.glimit, k.gactive, k.wake, k.lane(g)], [g]);
  }

  limit(g: BrandedId, n: number): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().glimit, [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.lane(g)], [g, n]);
  }

  reassign(id: BrandedId, dst: BrandedId): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().greassign, [k.job(id), k.lane(dst), k.ring, k.paused, k.glimit, k.gactive, k.wake, k.laneRoot], [id, dst]);
  }

  drain(g: BrandedId): Promise<unknown> {
    return conn.run(scripts().gdrain, [this.k.lane(g), this.k.ring, this.k.jobRoot], [g]);
  }

  reapGroup(g: BrandedId, limit = 100): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().greap_group, [k.active, k.lane(g), k.gactive, k.glimit, k.ring, k.wake, k.paused, k.jobRoot], [g, limit]);
  }

  depths(...groups: string[]): Promise<number[]> {
    return conn.run(scripts().lane_counts, [this.k.laneRoot], groups) as Promise<number[]>;
  }

  /** `ZRANGE key 0 -1 WITHSCORES` as [member, score] pairs, whatever the reply protocol. */
  async zscores(key: string): Promise<[string, number][]> {
    const reply = await this.cmd<unknown[]>('ZRANGE', key, 0, -1, 'WITHSCORES');
    if (reply.length > 0 && Array.isArray(reply[0])) return (reply as [string, string | number][]).map(([m, s]) => [m, Number(s)]);
    const out: [string, number][] = [];
    for (let i = 0; i < reply.length; i += 2) out.push([reply[i] as string, Number(reply[i + 1])]);
    return out;
  }

  ring(): Promise<string[]> {
    return this.cmd('LRANGE', this.k.ring, 0, -1);
  }

  gactive(): Promise<Record<string, string>> {
    return this.hgetall(this.k.gactive);
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    const flat = await this.cmd<string[]>('HGETALL', key);
    const out: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
    return out;
  }

  row(id: string): Promise<Record<string, string>> {
    return this.hgetall(this.k.job(id as BrandedId));
  }

  /** Claims and completes everything left, one rotation at a time; returns how many jobs ran. */
  async drainAll(claim: () => Promise<Entry[]>): Promise<number> {
    let served = 0;
    for (;;) {
      const batch = await claim();
      if (batch.length === 0) return served;
      for (const [id, , token] of batch) expect(await this.complete(id, token)).toBe(1);
      served += batch.length;
    }
  }
}

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
      [q.k.job(id as BrandedId), q.k.lane(a), q.k.ring, q.k.paused, q.k.glimit, q.k.gactive, q.k.wake],
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
    const keys = (id: BrandedId, g: BrandedId): string[] => [q.k.job(id), q.k.lane(g), q.k.ring, q.k.paused, q.k.glimit, q.k.gactive, q.k.wake];
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
    await q.cmd('ZADD', q.k.lane(a), 0, ghost);
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
      () => q.weight('nope', 2),
      () => q.pause('nope'),
      () => conn.run(scripts().gresume, [q.k.paused, q.k.ring, q.k.glimit, q.k.gactive, q.k.wake, q.k.lane(a)], ['nope']),
      () => conn.run(scripts().glimit, [q.k.glimit, q.k.gactive, q.k.ring, q.k.paused, q.k.wake, q.k.lane(a)], ['nope', 1]),
      () => conn.run(scripts().gdrain, [q.k.lane(a), q.k.ring, q.k.jobRoot], ['nope']),
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
    expect(await q.depths(a, b, mintId('PRT'), 'junk')).toEqual([2, 1, 0, 0]);
    expect(await q.depths()).toEqual([]);
  });
});

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
    expect(await conn.run(scripts().enqueue, [q.k.job(flat), q.k.pending], [flat, 'p'])).toBe(1);
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
