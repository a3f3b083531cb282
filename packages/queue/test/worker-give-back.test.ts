/**
 * pause() and close() start no handler after they are called: the jobs a worker claimed ahead of its
 * handlers go back to the queue at once, in one `give_back` step, and another worker runs them long
 * before their leases (30 s here) would have lapsed.
 */
import { Connection } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

/** A lease far longer than any bound below: a job that waited for it to lapse fails the test. */
const LEASE_MS = 30_000;
/** How long the other worker may take to run what was given back: a third of the lease. */
const PROMPTLY_MS = 10_000;
const quick = { maintenanceMs: 20, blockMs: 50, leaseMs: LEASE_MS } as const;

/** A handler that holds until `open()` is called. */
function gate(): { readonly wait: Promise<void>; readonly open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('close(): no handler starts after it, and what was claimed ahead goes back at once', () => {
  it('Worker: the jobs claimed ahead run on the other worker while the closing one still finishes its own', async () => {
    const queue = await Queue.open<number>(uniqueName('giveback'), { connection: conn });
    await queue.enqueueMany([1, 2, 3, 4, 5, 6].map((payload) => ({ payload })));
    const held = gate();
    let closing = false;
    const startedOnA: number[] = [];
    const startedAfterClose: number[] = [];
    // The first round claims one job per slot and one ahead per slot: the handler time is unknown yet.
    const a = await Worker.start(queue, async (job) => {
      startedOnA.push(job.payload);
      if (closing) startedAfterClose.push(job.payload);
      await held.wait;
    }, { ...quick, concurrency: 2, closeTimeoutMs: 60_000 });
    await until(() => startedOnA.length === 2, 'A to start two jobs');
    closing = true;
    const closed = a.close();
    const ranOnB: number[] = [];
    const b = await Worker.start(queue, (job) => void ranOnB.push(job.payload), { ...quick, concurrency: 2 });
    // A still runs its two: everything else, the jobs it held ahead included, runs on B now.
    await until(() => ranOnB.length === 4, 'B to run the four jobs A did not start', PROMPTLY_MS);
    held.open();
    await closed;
    expect(startedAfterClose).toEqual([]);
    expect([...startedOnA, ...ranOnB].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    await until(async () => (await queue.counts('pending', 'active')).active === 0, 'A settled its two');
    expect(await queue.counts('pending', 'active')).toEqual({ pending: 0, active: 0 });
    await b.close();
  });

  it('BatchWorker: the batch carried ahead runs on the other worker', async () => {
    const queue = await Queue.open<number>(uniqueName('giveback'), { connection: conn });
    await queue.enqueueMany([1, 2, 3, 4, 5, 6].map((payload) => ({ payload })));
    const held = gate();
    let closing = false;
    const startedOnA: number[] = [];
    const startedAfterClose: number[] = [];
    // The first claim takes this batch and the next: the handler time is unknown yet.
    const a = await BatchWorker.start(queue, async (jobs): Promise<'ok'> => {
      startedOnA.push(...jobs.map((j) => j.payload));
      if (closing) startedAfterClose.push(...jobs.map((j) => j.payload));
      await held.wait;
      return 'ok';
    }, { ...quick, size: 2, concurrency: 1, closeTimeoutMs: 60_000 });
    await until(() => startedOnA.length === 2, 'A to start its first batch');
    closing = true;
    const closed = a.close();
    const ranOnB: number[] = [];
    const b = await Worker.start(queue, (job) => void ranOnB.push(job.payload), { ...quick, concurrency: 2 });
    await until(() => ranOnB.length === 4, 'B to run the four jobs A did not start', PROMPTLY_MS);
    held.open();
    await closed;
    expect(startedAfterClose).toEqual([]);
    expect([...startedOnA, ...ranOnB].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    await b.close();
  });
});

describe('pause(): no handler starts after it, and what was claimed ahead goes back at once', () => {
  it('Worker at concurrency 4 paused mid-stream: not one more start; the rest run on the other worker', async () => {
    const queue = await Queue.open<number>(uniqueName('giveback'), { connection: conn });
    const total = 200;
    await queue.enqueueMany(Array.from({ length: total }, (_, i) => ({ payload: i })));
    let paused = false;
    let startsAfterPause = 0;
    const ranOnA: number[] = [];
    // Short handlers: the worker claims ahead, one spare per slot.
    const a: Worker<number> = await Worker.start(queue, (job) => {
      if (paused) startsAfterPause++;
      ranOnA.push(job.payload);
      if (ranOnA.length === 40) {
        paused = true;
        a.pause();
      }
    }, { ...quick, concurrency: 4 });
    await until(() => paused, 'A to pause itself mid-stream');
    const ranOnB: number[] = [];
    const b = await Worker.start(queue, (job) => void ranOnB.push(job.payload), { ...quick, concurrency: 4 });
    await until(() => ranOnA.length + ranOnB.length === total, 'every job to run once, the rest on B', PROMPTLY_MS);
    expect(startsAfterPause).toBe(0);
    expect(new Set([...ranOnA, ...ranOnB]).size).toBe(total);
    expect(a.isPaused).toBe(true);
    await until(async () => (await queue.counts('pending', 'active')).active === 0, 'everything settled');
    await b.close();
    await a.close();
  });

  it('BatchWorker paused while its batch runs: the batch carried ahead runs on the other worker; resume() claims again', async () => {
    const queue = await Queue.open<number>(uniqueName('giveback'), { connection: conn });
    await queue.enqueueMany([1, 2, 3, 4, 5, 6].map((payload) => ({ payload })));
    const held = gate();
    let paused = false;
    const startedOnA: number[] = [];
    const startedWhilePaused: number[] = [];
    const a = await BatchWorker.start(queue, async (jobs): Promise<'ok'> => {
      startedOnA.push(...jobs.map((j) => j.payload));
      if (paused) startedWhilePaused.push(...jobs.map((j) => j.payload));
      await held.wait;
      return 'ok';
    }, { ...quick, size: 2, concurrency: 1 });
    await until(() => startedOnA.length === 2, 'A to start its first batch');
    paused = true;
    a.pause();
    const ranOnB: number[] = [];
    const b = await Worker.start(queue, (job) => void ranOnB.push(job.payload), { ...quick, concurrency: 2 });
    await until(() => ranOnB.length === 4, 'B to run the four jobs A did not start', PROMPTLY_MS);
    held.open();
    await until(async () => (await queue.counts('pending', 'active')).active === 0, 'A settled its batch');
    expect(startedWhilePaused).toEqual([]);
    await b.close();
    paused = false;
    await queue.enqueueMany([7, 8].map((payload) => ({ payload })));
    a.resume();
    await until(() => startedOnA.length === 4, 'A to claim again after resume()');
    await a.close();
  });
});

describe('a weighted lane claim', () => {
  it('pause(): the extra jobs a weighted claim brought go back to their lane for the other worker', async () => {
    const queue = await Queue.open<number>(uniqueName('giveback'), { connection: conn });
    await queue.laneWeight('heavy', 3);
    for (const payload of [1, 2, 3]) await queue.enqueueInLane('heavy', payload);
    const held = gate();
    let paused = false;
    const startedOnA: number[] = [];
    const startedWhilePaused: number[] = [];
    // One slot, weight 3: the claim leases all three, one runs, two wait as spares.
    const a = await Worker.start(queue, async (job) => {
      startedOnA.push(job.payload);
      if (paused) startedWhilePaused.push(job.payload);
      await held.wait;
    }, { ...quick, source: 'lanes', concurrency: 1 });
    await until(() => startedOnA.length === 1, 'A to start one job');
    expect(await queue.counts('active')).toEqual({ active: 3 });
    paused = true;
    a.pause();
    const ranOnB: number[] = [];
    const b = await Worker.start(queue, (job) => void ranOnB.push(job.payload), { ...quick, source: 'lanes', concurrency: 2 });
    await until(() => ranOnB.length === 2, 'B to run the two spares', PROMPTLY_MS);
    held.open();
    await a.close();
    await b.close();
    expect(startedWhilePaused).toEqual([]);
    expect([...startedOnA, ...ranOnB].sort()).toEqual([1, 2, 3]);
  });
});

describe('Leases.giveBack', () => {
  it('is fenced by the token: a wrong one changes nothing; the right one puts the job back in pending', async () => {
    const queue = await Queue.open<number>(uniqueName('giveback'), { connection: conn });
    const { id } = await queue.enqueue(1);
    const leases = queue.leases();
    const job = await leases.claim(LEASE_MS);
    if (!job) throw new Error('nothing claimed');
    expect(await leases.giveBack([{ id, attempts: job.attempts + 1 }])).toEqual([]);
    expect(await queue.getState(id)).toBe('active');
    expect(await leases.giveBack([job])).toEqual([id]);
    expect(await queue.getState(id)).toBe('pending');
    expect((await queue.getJob(id))?.attempts).toBe(1);
    expect((await leases.claim(LEASE_MS))?.attempts).toBe(2);
  });
});
