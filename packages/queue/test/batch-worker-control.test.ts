import { Connection } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, JobTimeoutError, Queue, fixed } from '../src/index.js';
import { sleep, until } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const quick = { maintenanceMs: 20, blockMs: 50 } as const;

describe('BatchWorker: the controls a Worker has', () => {
  it('autorun: false claims nothing until run(); listeners attached before run() see every event', async () => {
    const queue = await Queue.open<number>(uniqueName('bwc'), { connection: conn });
    await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
    const worker = await BatchWorker.start(queue, () => 'ok', { ...quick, autorun: false });
    await sleep(150);
    expect(await queue.counts('pending', 'completed')).toEqual({ pending: 3, completed: 0 });
    const completed: number[] = [];
    let drained = 0;
    worker.on('completed', ({ job }) => completed.push(job.payload));
    worker.on('drained', () => drained++);
    worker.run();
    worker.run();
    await until(() => completed.length === 3 && drained >= 1, 'three completions, then drained');
    await worker.close();
    expect(completed.sort()).toEqual([1, 2, 3]);
  });

  it('pause() stops claiming while the batch in hand settles; resume() claims again', async () => {
    const queue = await Queue.open<number>(uniqueName('bwc'), { connection: conn });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    const worker = await BatchWorker.start(
      queue,
      async (jobs): Promise<'ok'> => {
        seen.push(...jobs.map((j) => j.payload));
        if (jobs.some((j) => j.payload === 1)) await held;
        return 'ok';
      },
      { ...quick, size: 5, concurrency: 1 },
    );
    await queue.enqueue(1);
    await until(() => seen.length === 1, 'the first batch to start');
    worker.pause();
    worker.pause();
    expect(worker.isPaused).toBe(true);
    expect(worker.running).toBe(1);
    await queue.enqueueMany([2, 3].map((payload) => ({ payload })));
    release();
    await until(async () => (await queue.counts('completed')).completed === 1, 'the batch in hand to settle');
    await sleep(200);
    expect(await queue.counts('pending', 'active')).toEqual({ pending: 2, active: 0 });
    worker.resume();
    expect(worker.isPaused).toBe(false);
    await until(async () => (await queue.counts('completed')).completed === 3, 'the rest after resume');
    await worker.close();
  });
});

describe('BatchWorker: timeoutMs is per member', () => {
  it('a member past its own timeoutMs aborts with JobTimeoutError and fails at once; the rest complete on the handler`s verdict', async () => {
    const queue = await Queue.open<string>(uniqueName('bwt'), { connection: conn });
    await queue.enqueue('short', { timeoutMs: 80, attempts: 1 });
    await queue.enqueue('free');
    const aborted = new Map<string, unknown>();
    const failed: { payload: string; error: unknown; outcome: string; whileHandlerRan: boolean }[] = [];
    let handlerReturned = false;
    const worker = await BatchWorker.start(
      queue,
      async (jobs, contexts): Promise<'ok'> => {
        for (const job of jobs) contexts.get(job.id)?.signal.addEventListener('abort', () => aborted.set(job.payload, contexts.get(job.id)?.signal.reason));
        // The handler holds the batch until the short member's failure is heard (or long past its
        // deadline), so "failed at its own deadline" is an order of events, not a duration.
        await until(() => failed.length > 0, 'the short member to fail', 5_000).catch(() => undefined);
        handlerReturned = true;
        return 'ok';
      },
      { ...quick, size: 10, concurrency: 1, shape: { minSize: 2, timeoutMs: 2000, pollMs: 10 } },
    );
    worker.on('failed', ({ job, error, outcome }) => failed.push({ payload: (job).payload, error, outcome, whileHandlerRan: !handlerReturned }));
    await until(async () => (await queue.counts('completed', 'dead')).completed === 1 && failed.length === 1, 'one completion, one timeout');
    await worker.close();
    expect(failed[0]?.payload).toBe('short');
    expect(failed[0]?.error).toBeInstanceOf(JobTimeoutError);
    expect(failed[0]?.outcome).toBe('dead');
    // Failed at its own deadline, while the handler still held the batch.
    expect(failed[0]?.whileHandlerRan).toBe(true);
    expect(aborted.get('short')).toBeInstanceOf(JobTimeoutError);
    expect(aborted.has('free')).toBe(false);
    expect(await queue.counts('completed', 'dead', 'active')).toEqual({ completed: 1, dead: 1, active: 0 });
  });

  it('once every member ran out of time the handler is not awaited: the one slot claims again', async () => {
    const queue = await Queue.open<number>(uniqueName('bwt'), { connection: conn });
    for (const payload of [1, 2]) await queue.enqueue(payload, { timeoutMs: 60, attempts: 2 });
    const attempts: number[] = [];
    const worker = await BatchWorker.start(
      queue,
      (jobs) => {
        attempts.push(...jobs.map((j) => j.attempts));
        // The first attempts ignore their signals and never return; with one batch in flight, only
        // giving up on them lets the slot claim the retries.
        if (jobs.some((j) => j.attempts === 1)) return new Promise<'ok'>(() => undefined);
        return 'ok';
      },
      { ...quick, size: 10, concurrency: 1, backoff: fixed(10), closeTimeoutMs: 100 },
    );
    await until(async () => (await queue.counts('completed')).completed === 2, 'both retries to complete', 3000);
    await worker.close();
    expect(attempts.filter((a) => a === 2)).toHaveLength(2);
  });
});
