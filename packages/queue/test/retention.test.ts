/**
 * Finished-job retention, results, waitUntilFinished, idempotency-key release and business keys,
 * flow parents' sub-keys. Standalone, and the multi-key paths again on the 3-master cluster.
 */
import { startCluster, startRedis, useRedis, uniqueName, type RedisCluster } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, InvalidArgumentError, InvalidNameError, mintId, parseKey, type JobId } from '@echo/protocol/extend';
import { JobFailedError, JobNotFoundError, Queue, Worker } from '../src/index.js';
import { expectError, until } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

const quiet = { maintenanceMs: 20, blockMs: 50, onError: (): void => undefined };

async function keysOf(q: Queue): Promise<string[]> {
  return ((await q.connection.command('KEYS', `emq:{${q.name}}:*`)) as string[]).sort();
}

/** Claims one job and settles it as done with `result`. */
async function completeOne(q: Queue, result?: string): Promise<JobId> {
  const job = await q.leases().claim(30_000);
  if (job === undefined) throw new Error('nothing to claim');
  await q.leases().complete(job, result, { publish: true });
  return job.id;
}

/** Claims one job and kills it. */
async function killOne(q: Queue, error = 'boom'): Promise<JobId> {
  const job = await q.leases().claim(30_000);
  if (job === undefined) throw new Error('nothing to claim');
  expect(await q.leases().retry(job, 0, 1, error)).toBe('dead');
  return job.id;
}

describe('retention', () => {
  it('keeps nothing completed by default: the row goes as the protocol says', async () => {
    const q = await Queue.open(uniqueName('ret'), { connection: conn });
    const { id } = await q.enqueue(1);
    await completeOne(q, '"r"');
    expect(await q.getJob(id)).toBeUndefined();
    expect(await q.getResult(id)).toBeUndefined();
    const left = await keysOf(q);
    expect(left.filter((k) => parseKey(k).kind === 'job' || k === q.keys.completed)).toEqual([]);
    expect(left).toContain(q.keys.metricsCompleted);
  });

  it('keeps completed jobs with result and finish time, trims by count, lists newest first', async () => {
    const q = await Queue.open(uniqueName('ret'), { connection: conn, keep: { completed: { count: 2 } } });
    const ids: JobId[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await q.enqueue(i)).id);
      await completeOne(q, JSON.stringify({ n: i }));
    }
    expect(await q.getJob(ids[0] as JobId)).toBeUndefined();
    const last = await q.getJob(ids[2] as JobId);
    expect(last?.state).toBe('completed');
    expect(last?.result).toEqual({ n: 2 });
    expect(last?.rawResult).toBe('{"n":2}');
    expect(last?.finishedAt).toBeGreaterThan(0);
    expect(await q.getResult(ids[1] as JobId)).toEqual({ n: 1 });
    expect(await q.getState(ids[1] as JobId)).toBe('completed');
    expect(await q.counts('retained', 'completed')).toEqual({ retained: 2, completed: 3 });
    const page = await q.listJobs('completed');
    expect(page.total).toBe(2);
    expect(page.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    // Every key left on the server parses.
    for (const key of await keysOf(q)) expect(parseKey(key).kind).not.toBe('unclassified');
  });

  it('a kept completion writes its row and trims the index in bulk, within the documented slack', async () => {
    // A server of its own: commandstats must count these calls alone.
    const server = await startRedis();
    const q = await Queue.open<number>('kept-bulk', { connect: { host: server.host, port: server.port }, keep: { completed: { count: 100 } } });
    /** The server's commands so far (script-internal calls included), EVALSHAs apart. */
    const commands = async (): Promise<{ all: number; evalsha: number }> => {
      const stats = String(await q.connection.command('INFO', 'commandstats'));
      let all = 0;
      for (const m of stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== 'info') all += Number(m[2]);
      return { all, evalsha: Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0) };
    };
    try {
      const ids: JobId[] = [];
      for (const r of await q.enqueueMany(Array.from({ length: 400 }, (_, i) => ({ payload: i })))) if (r.status === 'enqueued') ids.push(r.id);
      // Warm the script cache, then count steady-state rounds of 50.
      const first = await q.leases().claimBatch(50, 30_000);
      expect(await q.leases().completeMany(first)).toHaveLength(50);
      await q.connection.command('CONFIG', 'RESETSTAT');
      let lastCount = 0;
      for (let round = 0; round < 7; round++) {
        const before = await commands();
        const jobs = await q.leases().claimBatch(50, 30_000);
        const claimedAt = await commands();
        expect(await q.leases().completeMany(jobs, { publish: true })).toEqual(jobs.map(() => 'ok'));
        const after = await commands();
        lastCount = after.all - claimedAt.all - (after.evalsha - claimedAt.evalsha);
        expect(claimedAt.all).toBeGreaterThan(before.all);
        // Per job: the row read, the row write, the event, and the trim's state check of one older
        // row; the clock, the lock markers' DEL, the index write and the trim are paid once per call.
        expect(lastCount / jobs.length).toBeLessThan(4.5);
        const retained = (await q.counts('retained')).retained;
        expect(retained).toBeGreaterThanOrEqual(Math.min(100, 50 * (round + 2)));
        // count / 16 = 6 rows of slack past the bound.
        expect(retained).toBeLessThanOrEqual(106);
      }
      expect(lastCount).toBeGreaterThan(0);
      // The oldest rows went with their sub-keys; the newest stayed completed, with every key parsing.
      expect(await q.getJob(ids[0] as JobId)).toBeUndefined();
      expect(await q.getState(ids[399] as JobId)).toBe('completed');
      const keys = ((await q.connection.command('KEYS', '*')) as string[]).map((k) => parseKey(k));
      expect(keys.filter((k) => k.kind === 'job').length).toBe((await q.counts('retained')).retained);
      expect(keys.filter((k) => k.kind === 'unclassified')).toEqual([]);
    } finally {
      await q.close();
      await server.stop();
    }
  });

  it('an age bound alone keeps completed jobs (no count bound), not none', async () => {
    const q = await Queue.open(uniqueName('ret'), { connection: conn, keep: { completed: { ageMs: 60_000 } } });
    const { id } = await q.enqueue(1);
    const job = await q.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    await q.leases().complete(job, 'x');
    expect(await q.getState(id)).toBe('completed');
  });

  it('a retained completed row refuses a second complete or retry as gone, counting once', async () => {
    const q = await Queue.open(uniqueName('ret'), { connection: conn, keep: { completed: { count: 10 } } });
    await q.enqueue(1);
    const job = await q.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    await q.leases().complete(job, 'x');
    await expect(q.leases().complete(job, 'x')).rejects.toThrow(/gone/);
    await expect(q.leases().retry(job, 0, 1, 'e')).rejects.toThrow(/gone/);
    expect((await q.getMetrics('completed')).count).toBe(1);
  });

  it('the Worker keeps its handler results through the fused round', async () => {
    const q = await Queue.open<number>(uniqueName('ret'), { connection: conn, keep: { completed: { count: 100 } } });
    const ids = await Promise.all([1, 2, 3].map(async (n) => (await q.enqueue(n)).id));
    const worker = await Worker.start(q, (job) => (job.payload === 2 ? 'two' : { doubled: job.payload * 2 }), { ...quiet, concurrency: 3 });
    try {
      await until(async () => (await q.listJobs('completed')).total === 3, 'three retained');
    } finally {
      await worker.close();
    }
    expect(await q.getResult(ids[0] as JobId)).toEqual({ doubled: 2 });
    expect(await q.getResult(ids[1] as JobId)).toBe('two');
  });

  it('bounds the dead set by the failed policy, measured by finish time; clean ages from the finish', async () => {
    const q = await Queue.open(uniqueName('ret'), { connection: conn, keep: { failed: { count: 2 } } });
    const ids: JobId[] = [];
    for (let i = 0; i < 4; i++) {
      await q.enqueue(i);
      ids.push(await killOne(q, `e${String(i)}`));
    }
    expect((await q.listJobs('dead')).total).toBe(2);
    const failed = await q.listJobs('failed');
    expect(failed.jobs.map((j) => j.id)).toEqual([ids[3], ids[2]]);
    expect(failed.jobs[0]?.record?.finishedAt).toBeGreaterThan(0);
    // Created long enough ago is not enough: they finished just now.
    expect(await q.clean({ state: 'failed', olderThanMs: 60_000 })).toBe(0);
    // A job brought back, or removed, leaves the finish-time index with the dead set.
    await q.reprocess(ids[2] as JobId);
    expect((await q.listJobs('failed')).jobs.map((j) => j.id)).toEqual([ids[3]]);
    await q.remove(ids[2] as JobId);
    await q.enqueue(9);
    ids.push(await killOne(q));
    expect(await q.retryJobs({ state: 'dead', count: 1 })).toBe(1);
    expect((await q.listJobs('failed')).jobs.map((j) => j.id)).toEqual([ids[4]]);
    expect(await q.clean({ state: 'dead', olderThanMs: 0 })).toBe(1);
    expect(await q.counts('dead')).toEqual({ dead: 0 });
  });

  it('clean({ state: completed }) deletes retained completed jobs that finished long enough ago', async () => {
    const q = await Queue.open(uniqueName('ret'), { connection: conn, keep: { completed: { count: 100 } } });
    const { id } = await q.enqueue(1);
    await completeOne(q);
    expect(await q.clean({ state: 'completed', olderThanMs: 60_000 })).toBe(0);
    expect(await q.clean({ state: 'completed', olderThanMs: 0 })).toBe(1);
    expect(await q.getJob(id)).toBeUndefined();
    await expect(q.clean({ state: 'pending' as 'dead', olderThanMs: 0 })).rejects.toThrow(InvalidArgumentError);
  });
});

describe('waitUntilFinished', () => {
  it('reads a verdict that came before the call, then listens for one after it', async () => {
    const q = await Queue.open(uniqueName('wait'), { connection: conn, keep: { completed: { count: 10 } } });
    const before = await q.enqueue(1);
    await completeOne(q, 'early');
    await expect(q.waitUntilFinished(before.id, { timeoutMs: 2000 })).resolves.toEqual({ id: before.id, result: 'early' });
    const after = await q.enqueue(2);
    const waiting = q.waitUntilFinished(after.id, { timeoutMs: 5000 });
    const events = await q.events();
    try {
      // Sharing an open listener's connection reads the early verdict the same way.
      await expect(q.waitUntilFinished(before.id, { timeoutMs: 2000, events })).resolves.toEqual({ id: before.id, result: 'early' });
    } finally {
      await events.close();
    }
    await completeOne(q, 'late');
    await expect(waiting).resolves.toEqual({ id: after.id, result: 'late' });
  });

  it('rejects with the failure for a dead job, and not-found for a job that never was', async () => {
    const q = await Queue.open(uniqueName('wait'), { connection: conn });
    const dead = await q.enqueue(1);
    await killOne(q, 'kaput');
    const error = await q.waitUntilFinished(dead.id, { timeoutMs: 2000 }).catch((e: unknown) => e);
    expectError(error, JobFailedError);
    expect((error as JobFailedError).failure).toBe('kaput');
    const never = mintId('JOB');
    expectError(await q.waitUntilFinished(never, { timeoutMs: 2000 }).catch((e: unknown) => e), JobNotFoundError);
  });
});

describe('idempotency keys end with their job', () => {
  it('a dedupId without a TTL is released on complete, dead and remove; one with a TTL is left', async () => {
    const q = await Queue.open(uniqueName('dd'), { connection: conn });
    const a = await q.enqueue(1, { dedupId: 'done' });
    await completeOne(q);
    expect((await q.enqueue(1, { dedupId: 'done' })).status).toBe('enqueued');
    await completeOne(q);
    await q.enqueue(1, { dedupId: 'dies' });
    await killOne(q);
    expect((await q.enqueue(1, { dedupId: 'dies' })).status).toBe('enqueued');
    const later = await q.enqueue(1, { dedupId: 'removed', delayMs: 60_000 });
    await q.remove(later.id);
    expect((await q.enqueue(1, { dedupId: 'removed' })).status).toBe('enqueued');
    await q.drain();
    expect(await q.getDedupJobId('removed')).toBeUndefined();
    const ttl = await q.enqueue(1, { dedupId: 'ttl', dedupTtlMs: 60_000 });
    await completeOne(q);
    expect(await q.getDedupJobId('ttl')).toBe(ttl.id);
    expect(a.status).toBe('enqueued');
  });

  it('a business key holds while the job lives and for its window after, delayed jobs included', async () => {
    const q = await Queue.open(uniqueName('bk'), { connection: conn, keep: { completed: { count: 10 } } });
    const first = await q.enqueue({ order: 42 }, { key: 'order-42', delayMs: 50 });
    expect(await q.enqueue({ order: 42 }, { key: 'order-42' })).toMatchObject({ status: 'duplicate', existingId: first.id });
    expect((await q.getJobByKey('order-42'))?.id).toBe(first.id);
    await until(async () => (await q.maintenance().promote(10)) >= 0 && (await q.counts('pending')).pending === 1, 'due');
    await completeOne(q, 'shipped');
    expect(await q.enqueue({ order: 42 }, { key: 'order-42' })).toMatchObject({ status: 'duplicate', existingId: first.id });
    const found = await q.getJobByKey('order-42');
    expect(found?.state).toBe('completed');
    expect(found?.result).toBe('shipped');
    const pttl = Number(await q.connection.command('PTTL', q.keys.dedup('order-42')));
    expect(pttl).toBeGreaterThan(3_500_000);
    const short = await q.enqueue(1, { key: 'short', keyRetentionMs: 1 });
    await completeOne(q);
    await until(async () => (await q.getDedupJobId('short')) === undefined, 'the window passed');
    expect((await q.enqueue(1, { key: 'short' })).id).not.toBe(short.id);
  });

  it('refuses a bad key (beside a dedupId too), and a dedup ttl with a key but no dedupId', async () => {
    const q = await Queue.open(uniqueName('bk'), { connection: conn });
    await expect(q.enqueue(1, { key: 'a:b' })).rejects.toThrow(InvalidNameError);
    await expect(q.enqueue(1, { key: 'x'.repeat(256) })).rejects.toThrow(InvalidNameError);
    await expect(q.enqueue(1, { key: 'a:b', dedupId: 'd' })).rejects.toThrow(InvalidNameError);
    await expect(q.enqueue(1, { key: 'k', dedupTtlMs: 5 })).rejects.toThrow(InvalidArgumentError);
    expect(await keysOf(q)).toEqual([]);
  });
});

/**
 * A step parent holding an idempotency key adds a fail-parent child, in its own queue or (`elsewhere`)
 * another, which dies: the parent dies with it, through the outbox when elsewhere, and must end as
 * any dead-lettered job does.
 */
async function killParentThroughChild(connection: Connection, elsewhere: boolean): Promise<void> {
  const q = await Queue.open<string>(uniqueName('xfp'), { connection });
  const kids = elsewhere ? await Queue.open<string>(uniqueName('xkid'), { connection }) : q;
  const parent = await q.enqueue('parent', { dedupId: 'once' });
  const held = await q.leases().claim(30_000);
  if (held === undefined) throw new Error('no parent');
  await q.leases().addChildren(held, [{ payload: 'child', queue: kids.name }]);
  expect(await q.leases().waitForChildren(held)).toBe(1);
  await killOne(kids);
  if (elsewhere) expect((await kids.maintenance().deliverOutbox()).delivered).toBe(1);
  expect(await q.getState(parent.id)).toBe('dead');
  const failed = await q.listJobs('failed');
  // In its own queue the dead child is listed too.
  expect(failed.jobs.map((j) => j.id)).toContain(parent.id);
  expect(failed.jobs.find((j) => j.id === parent.id)?.record?.finishedAt).toBeGreaterThan(0);
  expect(await q.getDedupJobId('once')).toBeUndefined();
  expect((await q.enqueue('again', { dedupId: 'once' })).status).toBe('enqueued');
  expect(await q.clean({ state: 'failed', olderThanMs: 0 })).toBe(elsewhere ? 1 : 2);
  expect(await q.getJob(parent.id)).toBeUndefined();
}

describe('flow parents', () => {
  it('a completed parent leaves no :processed or :dependencies, and comes back with its priority', async () => {
    const q = await Queue.open(uniqueName('fp'), { connection: conn });
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child' }] });
    // addFlow takes no priority; the row field is what the claim order reads, so set it as one would be.
    await q.connection.command('HSET', q.keys.job(flow.id), 'priority', '5');
    const child = await q.leases().claim(30_000);
    if (child === undefined) throw new Error('no child');
    const plain = await q.enqueue('plain', { priority: 3 });
    await q.leases().complete(child, 'c');
    // The parent (priority 5) is back in pending ahead of the plain job (priority 3): at score 0 it
    // would come after it.
    const next = await q.leases().claim(30_000);
    expect(next?.id).toBe(flow.id);
    if (next === undefined) throw new Error('no parent');
    await q.leases().complete(next);
    const left = await keysOf(q);
    expect(left.filter((k) => k.includes(':processed') || k.includes(':dependencies'))).toEqual([]);
    expect((await q.leases().claim(30_000))?.id).toBe(plain.id);
  });

  it('a parent killed by its child is stamped, listed as failed, cleanable, and frees its key', async () => {
    await killParentThroughChild(conn, false);
  });

  it('so is a parent killed from another queue through the outbox', async () => {
    await killParentThroughChild(conn, true);
  });
});

describe('on the 3-master cluster', () => {
  let cluster: RedisCluster;
  let cconn: Connection;
  beforeAll(async () => {
    cluster = await startCluster();
    cconn = await Connection.connect({ cluster: cluster.seeds, strictKeys: true });
  }, 60_000);
  afterAll(async () => {
    await cconn.close();
    await cluster.stop();
  });

  it('retention, key release and business keys hold in one slot', async () => {
    const q = await Queue.open(uniqueName('cl'), { connection: cconn, keep: { completed: { count: 1 }, failed: { count: 1 } } });
    const a = await q.enqueue(1, { key: 'k1' });
    await completeOne(q, 'r1');
    await q.enqueue(2, { dedupId: 'd2' });
    await completeOne(q, 'r2');
    expect(await q.getJob(a.id)).toBeUndefined();
    expect((await q.enqueue(3, { dedupId: 'd2' })).status).toBe('enqueued');
    await killOne(q);
    await q.enqueue(4);
    await killOne(q);
    expect((await q.counts('dead')).dead).toBe(1);
    expect((await q.getJobByKey('k1'))?.id).toBeUndefined();
    expect(await q.getDedupJobId('k1')).toBe(a.id);
  });

  it('a parent killed from another queue ends as a dead-lettered job on its own slot', async () => {
    await killParentThroughChild(cconn, true);
  });
});
