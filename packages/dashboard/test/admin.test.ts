import { Bus } from '@echo/bus';
import { Cache } from '@echo/cache';
import { Connection, GoneError, InvalidNameError, mintId, StateError } from '@echo/protocol/extend';
import { Queue, Worker } from '@echo/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, cacheTableViews, type CacheStatsSource } from '../src/index.js';

// Its own server: discovery lists everything on it, so no other test file may share it.
let server: RedisServer;
let conn: Connection;
let admin: Admin;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
  admin = Admin.over(conn);
});
afterAll(async () => {
  await admin.close();
  await conn.close();
  await server.stop();
});

/** Leaves `n` dead jobs (each failed once with `maxAttempts` 1) and answers their ids. */
async function deadJobs(queue: Queue<{ n: number }>, n: number): Promise<string[]> {
  await queue.enqueueMany(Array.from({ length: n }, (_, i) => ({ payload: { n: i } })));
  const ids: string[] = [];
  for (const job of await queue.leases().claimBatch(n, 30_000)) {
    await queue.leases().retry(job, 0, 1, `boom ${job.payload.n}`);
    ids.push(job.id);
  }
  return ids;
}

describe('Admin', () => {
  it('finds every queue by its fixed keys, also one with only metrics left', async () => {
    const a = await Queue.open('disc-a', { connection: conn });
    const b = await Queue.open('disc-b', { connection: conn });
    await a.enqueue('x');
    await b.enqueue('y');
    const job = await b.leases().claim(30_000);
    await b.leases().complete(job!);
    await b.enqueue('later', { delayMs: 60_000 });
    await (await Bus.open('disc-c', { connection: conn })).stream('log').append({ k: 'v' });
    const names = await admin.queues();
    expect(names).toEqual(expect.arrayContaining(['disc-a', 'disc-b']));
    expect(names).not.toContain('disc-c');
  });

  it('summarises counts, pause state and ceiling', async () => {
    const queue = await Queue.open<{ n: number }>('sum', { connection: conn });
    await deadJobs(queue, 2);
    await queue.enqueue({ n: 9 });
    await queue.enqueue({ n: 10 }, { delayMs: 60_000 });
    await queue.pause();
    expect(await admin.summary('sum')).toEqual({
      name: 'sum',
      paused: true,
      concurrency: 0,
      counts: { pending: 1, lanes: 0, active: 0, scheduled: 1, dead: 2, awaitingChildren: 0, completed: 0, failed: 2 },
    });
    await admin.resume('sum');
    expect((await admin.summary('sum')).paused).toBe(false);
    await expect(admin.summary('bad name!')).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('lists dead jobs with error and attempts, shows one with its logs, retries and removes', async () => {
    const queue = await Queue.open<{ n: number }>('dead', { connection: conn });
    const ids = await deadJobs(queue, 3);
    await queue.addLog(ids[0]!, 'first line');
    const page = await admin.jobs('dead', 'dead', { limit: 2 });
    expect(page.total).toBe(3);
    // Dead jobs list newest first.
    expect(page.jobs.map((j) => [j.id, j.attempts, j.lastError, j.payload])).toEqual([
      [ids[2], 1, 'boom 2', '{"n":2}'],
      [ids[1], 1, 'boom 1', '{"n":1}'],
    ]);
    expect(await admin.job('dead', ids[0]!)).toMatchObject({ position: 'dead', state: 'dead', logs: ['first line'], lastError: 'boom 0' });

    await admin.retry('dead', ids[0]!);
    expect(await queue.getState(ids[0]!)).toBe('pending');
    await expect(admin.retry('dead', ids[0]!)).rejects.toBeInstanceOf(StateError);
    await admin.remove('dead', ids[1]!);
    await expect(admin.job('dead', ids[1]!)).rejects.toBeInstanceOf(GoneError);
    expect((await admin.summary('dead')).counts).toMatchObject({ pending: 1, dead: 1 });
  });

  it('shows a lane job by its lane name and a completed job with its decoded result', async () => {
    const queue = await Queue.open<string>('named-lanes', { connection: conn, keep: { completed: { count: 10 } } });
    const { id: laned } = await queue.enqueueInLane('acme-corp', 'l');
    expect(await admin.job('named-lanes', laned)).toMatchObject({ lane: 'acme-corp', result: null });
    const { id } = await queue.enqueue('r');
    const job = await queue.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    await queue.leases().complete(job, JSON.stringify({ total: 42 }));
    expect(await admin.job('named-lanes', id)).toMatchObject({ position: 'completed', result: { total: 42 }, lane: null });
  });

  it('retries every dead job, page after page', async () => {
    const queue = await Queue.open<{ n: number }>('dead-all', { connection: conn });
    await deadJobs(queue, 450);
    expect(await admin.retryAllDead('dead-all')).toEqual({ retried: 450, skipped: 0 });
    expect(await queue.counts('dead', 'pending')).toEqual({ dead: 0, pending: 450 });
    expect(await admin.retryAllDead('dead-all')).toEqual({ retried: 0, skipped: 0 });
  });

  it('drains waiting jobs through the drain transition', async () => {
    const queue = await Queue.open('drain', { connection: conn });
    await queue.enqueueMany([{ payload: 1 }, { payload: 2 }]);
    await queue.enqueue(3, { delayMs: 60_000 });
    expect(await admin.drain('drain')).toBe(2);
    expect(await admin.drain('drain', { includeScheduled: true })).toBe(1);
  });

  it('measures completions per second over a window', async () => {
    const queue = await Queue.open('rates', { connection: conn });
    await queue.enqueueMany(Array.from({ length: 20 }, (_, n) => ({ payload: n })));
    const jobs = await queue.leases().claimBatch(20, 30_000);
    const sampling = admin.rates('rates', 400);
    await new Promise((r) => setTimeout(r, 100));
    await queue.leases().completeMany(jobs);
    const rates = await sampling;
    expect(rates.failedPerSec).toBe(0);
    // 20 completions inside a window of at least 400 ms: at most 50/s, and more than nothing.
    expect(rates.completedPerSec).toBeGreaterThan(0);
    expect(rates.completedPerSec).toBeLessThanOrEqual(50);
    expect(rates.windowMs).toBeGreaterThanOrEqual(400);
  });

  it('reads streams with their groups and lag', async () => {
    const bus = await Bus.open('streams', { connection: conn });
    const stream = bus.stream('audit');
    await stream.appendBatch([{ n: '1' }, { n: '2' }, { n: '3' }]);
    await stream.openGroup('billing', 'head');
    await stream.openGroup('late', 'new');
    await conn.command('XREADGROUP', 'GROUP', 'billing', 'c1', 'COUNT', 1, 'STREAMS', stream.key, '>');
    const info = await admin.stream('streams', 'audit');
    expect(info).toMatchObject({ queue: 'streams', name: 'audit', length: 3 });
    expect(info.groups.map((g) => [g.name, g.consumers, g.pending, g.lag])).toEqual([
      ['billing', 1, 1, 2],
      ['late', 0, 0, 0],
    ]);
    // A trim past entries the group was never delivered leaves the server's counter too high for
    // good; the dashboard counts what is left after the group's position instead.
    await stream.appendBatch([{ n: '4' }, { n: '5' }]);
    await conn.command('XTRIM', stream.key, 'MAXLEN', '=', 2);
    const raw = (await conn.command('XINFO', 'GROUPS', stream.key)) as unknown[][];
    const billing = raw.find((g) => g[1] === 'billing') ?? [];
    expect(billing[billing.indexOf('lag') + 1]).not.toBe(2);
    expect((await admin.stream('streams', 'audit')).groups.map((g) => [g.name, g.lag])).toEqual([
      ['billing', 2],
      ['late', 2],
    ]);
    expect((await admin.streams()).map((s) => `${s.queue}/${s.name}`)).toContain('streams/audit');
    await expect(admin.stream('streams', 'nope')).rejects.toBeInstanceOf(GoneError);
  });

  it('lists cache tables by their L2 rows, with hit ratios from a local directory', async () => {
    const cache = await Cache.open({ connection: conn });
    const users = await cache.declare({ name: 'users', kind: 'USR', loader: (id) => ({ id }) });
    const ids = [mintId('USR'), mintId('USR')];
    for (const id of ids) await users.fetch(id);
    await users.fetch(ids[0]!);
    await users.fetch(ids[0]!);
    const source: CacheStatsSource = cache;
    const [view] = cacheTableViews(await admin.cacheTables(), source);
    expect(view).toMatchObject({ table: 'users', kind: 'USR', l2Rows: 2, local: { hits: 2, misses: 2, fills: 2, hitRatio: 0.5 } });
    expect(cacheTableViews(await admin.cacheTables(), undefined)).toEqual([{ table: 'users', kind: null, l2Rows: 2, local: null }]);
    await cache.close();
  });

  it('counts worker connections on the server', async () => {
    const queue = await Queue.open('workers', { connection: conn });
    const before = await admin.workers();
    const worker = await Worker.start(queue, () => undefined);
    expect(await admin.workers()).toBe((before ?? 0) + 1);
    await worker.close();
  });
});
