/**
 * Deadlines for waiting jobs (`expireInMs`, `expireAt`): a job met by a claim past its deadline is
 * settled as `expired` inside the claim script and never handed out, on every claim path (claim,
 * claimBatch, completeAndClaim, the three lane claims, and so Worker and BatchWorker), and on a
 * cluster. Deadlines in the past (`expireAt: 1`) make the expiry certain without waiting on a clock.
 */
import type { LifecycleEvent } from '@echo/protocol/queue';
import { startCluster, startRedis, type RedisCluster, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker, type QueueEvents } from '../src/index.js';
import { until } from './worker-harness.js';

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
}, 60_000);
afterAll(async () => {
  await server.stop();
});

async function open<T>(): Promise<Queue<T>> {
  return Queue.open<T>(`deadline-${String(++n)}-${String(process.pid)}`, { connect: { host: server.host, port: server.port, strictKeys: true } });
}

function record(events: QueueEvents): LifecycleEvent[] {
  const seen: LifecycleEvent[] = [];
  events.on('*', (event) => seen.push(event));
  return seen;
}

const PAST = 1;

describe('a claim meets a job past its deadline', () => {
  it('settles it as expired (state, event, count, index) and leases the next one instead', async () => {
    const q = await open<string>();
    const events = await q.events();
    const seen = record(events);
    const late = (await q.enqueue('late', { expireAt: PAST })).id;
    const plain = (await q.enqueue('plain')).id;
    const timely = (await q.enqueue('timely', { expireInMs: 60_000 })).id;
    expect((await q.leases().claim(60_000))?.id).toBe(plain);
    expect((await q.leases().claim(60_000))?.id).toBe(timely);
    expect(await q.leases().claim(60_000)).toBeUndefined();
    expect(await q.getState(late)).toBe('expired');
    expect((await q.getJob(late))?.payload).toBe('late');
    expect(await q.counts('expired', 'pending', 'active')).toEqual({ expired: 1, pending: 0, active: 2 });
    expect(await q.connection.command('ZRANGE', q.keys.expired, 0, -1)).toEqual([late]);
    await until(() => seen.some((e) => e.event === 'expired'), 'the expired event');
    expect(seen.filter((e) => e.event === 'expired')).toEqual([{ event: 'expired', job: late, fields: { expireAt: '1' } }]);
    await events.close();
    await q.close();
  });

  it('expireInMs counts from the server clock at admission and is kept in the row as expire_at', async () => {
    const q = await open<string>();
    const [sec] = (await q.connection.command('TIME')) as [string, string];
    const { id } = await q.enqueue('x', { expireInMs: 5000 });
    const at = Number(await q.connection.command('HGET', q.keys.job(id), 'expire_at'));
    expect(at).toBeGreaterThanOrEqual(Number(sec) * 1000 + 5000);
    expect(at).toBeLessThan(Number(sec) * 1000 + 7000);
    await q.close();
  });

  it('claimBatch and completeAndClaim lease only the live ones', async () => {
    const q = await open<string>();
    const ids = [];
    for (const [i, expireAt] of [PAST, undefined, PAST, undefined].entries()) ids.push((await q.enqueue(`b${String(i)}`, expireAt === undefined ? {} : { expireAt })).id);
    const batch = await q.leases().claimBatch(10, 60_000);
    expect(batch.map((j) => j.id)).toEqual([ids[1], ids[3]]);
    const dead = (await q.enqueue('r-late', { expireAt: new Date(PAST) })).id;
    const live = (await q.enqueue('r-live')).id;
    const round = await q.leases().completeAndClaim(batch, 5, 60_000);
    expect(round.claimed.map((j) => j.id)).toEqual([live]);
    expect(await q.getState(dead)).toBe('expired');
    expect(await q.counts('expired')).toEqual({ expired: 3 });
    await q.close();
  });

  it('every lane claim passes over an expired lane job', async () => {
    const q = await open<string>();
    const late = [];
    const live = [];
    for (const lane of ['a', 'b', 'c']) {
      late.push((await q.enqueueInLane(lane, `${lane}-late`, { expireAt: PAST })).id);
      live.push((await q.enqueueInLane(lane, `${lane}-live`)).id);
    }
    const one = await q.leases().laneClaim(60_000);
    const weighted = await q.leases().laneWeightedClaim(60_000);
    const batch = await q.leases().laneBatchClaim(60_000);
    expect([one?.id, ...weighted.map((j) => j.id), ...batch.map((j) => j.id)].sort()).toEqual([...live].sort());
    for (const id of late) expect(await q.getState(id)).toBe('expired');
    expect(await q.counts('expired', 'active')).toEqual({ expired: 3, active: 3 });
    await q.close();
  });

  it('a scheduled job and a retried one are expired by the claim after they become due', async () => {
    const q = await open<string>();
    const scheduled = (await q.enqueue('s', { runAt: Date.now() - 1000, expireAt: PAST })).id;
    expect(await q.getState(scheduled)).toBe('scheduled');
    expect(await q.maintenance().promote()).toBe(1);
    expect(await q.leases().claim(60_000)).toBeUndefined();
    expect(await q.getState(scheduled)).toBe('expired');

    const retried = (await q.enqueue('r', { expireInMs: 300 })).id;
    const held = await q.leases().claim(60_000);
    expect(held?.id).toBe(retried);
    const at = Number(await q.connection.command('HGET', q.keys.job(retried), 'expire_at'));
    await until(async () => {
      const [s, us] = (await q.connection.command('TIME')) as [string, string];
      return Number(s) * 1000 + Math.floor(Number(us) / 1000) > at;
    }, 'the deadline passed on the server');
    if (held === undefined) throw new Error('unreachable');
    expect(await q.leases().retry(held, 0, 5, 'again')).toBe('scheduled');
    expect(await q.maintenance().promote()).toBe(1);
    expect(await q.leases().claim(60_000)).toBeUndefined();
    expect(await q.getState(retried)).toBe('expired');
    await q.close();
  });

  it('waitUntilFinished rejects with JobFailedError for an expired job, before and after the claim', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('w', { expireAt: PAST });
    const waiting = q.waitUntilFinished(id, { timeoutMs: 5000 });
    const events = await q.events();
    const seen = record(events);
    await q.updateProgress(id, 1);
    await until(() => seen.some((e) => e.event === 'progress'), 'the listener is subscribed');
    expect(await q.leases().claim(60_000)).toBeUndefined();
    await expect(waiting).rejects.toMatchObject({ code: 'job_failed', failure: 'expired' });
    await expect(q.waitUntilFinished(id, { timeoutMs: 5000 })).rejects.toMatchObject({ failure: 'expired' });
    await events.close();
    await q.close();
  });

  it('releases the idempotency key of the expired job', async () => {
    const q = await open<string>();
    const first = await q.enqueue('d1', { dedupId: 'order-1', expireAt: PAST });
    expect((await q.enqueue('d2', { dedupId: 'order-1' })).status).toBe('duplicate');
    expect(await q.leases().claim(60_000)).toBeUndefined();
    expect(await q.getState(first.id)).toBe('expired');
    const again = await q.enqueue('d3', { dedupId: 'order-1' });
    expect(again.status).toBe('enqueued');
    await q.close();
  });

  it('keeps expired rows by the failed retention', async () => {
    const q = await open<string>();
    await q.setRetention({ failed: { count: 1 } });
    const a = (await q.enqueue('a', { expireAt: PAST })).id;
    const b = (await q.enqueue('b', { expireAt: PAST })).id;
    expect(await q.leases().claim(60_000)).toBeUndefined();
    expect(await q.connection.command('ZRANGE', q.keys.expired, 0, -1)).toEqual([b]);
    expect(await q.getState(a)).toBe('absent');
    expect(await q.getState(b)).toBe('expired');
    await q.close();
  });

  it('Worker and BatchWorker handlers never see an expired job', async () => {
    for (const kind of ['worker', 'batch'] as const) {
      const q = await open<string>();
      for (let i = 0; i < 6; i++) await q.enqueue(`j${String(i)}`, i % 2 === 0 ? { expireAt: PAST } : {});
      const seen: string[] = [];
      const worker =
        kind === 'worker'
          ? await Worker.start(q, (job) => void seen.push(job.payload), { maintenanceMs: 0, blockMs: 50, concurrency: 2 })
          : await BatchWorker.start(q, (jobs) => {
              seen.push(...jobs.map((j) => j.payload));
              return 'ok';
            }, { maintenanceMs: 0, blockMs: 50, size: 4 });
      await until(async () => (await q.counts('expired')).expired === 3 && seen.length === 3, `${kind}: the live jobs ran`);
      await worker.close();
      expect(seen.sort()).toEqual(['j1', 'j3', 'j5']);
      await q.close();
    }
  });

  it('rejects a bad deadline before anything is written', async () => {
    const q = await open<string>();
    await expect(q.enqueue('x', { expireInMs: 0 })).rejects.toThrow(/expireInMs/);
    await expect(q.enqueue('x', { expireInMs: 10, expireAt: Date.now() + 10 })).rejects.toThrow(/expireAt or expireInMs/);
    expect(await q.counts('pending')).toEqual({ pending: 0 });
    await q.close();
  });
});

describe('deadlines on a 3-master cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startCluster({ masters: 3 });
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  it('the claim expires in the queue slot: row, index and idempotency key together', async () => {
    const q = await Queue.open<string>(`deadline-cluster-${String(process.pid)}`, { connect: { cluster: cluster.seeds, strictKeys: true } });
    const late = (await q.enqueue('late', { expireAt: PAST, dedupId: 'k1' })).id;
    const live = (await q.enqueue('live')).id;
    expect((await q.leases().claimBatch(5, 60_000)).map((j) => j.id)).toEqual([live]);
    expect(await q.getState(late)).toBe('expired');
    expect(await q.getDedupJobId('k1')).toBeUndefined();
    await q.close();
  });
});
