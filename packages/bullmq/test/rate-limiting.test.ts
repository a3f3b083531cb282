import { describe, expect, it } from 'vitest';
import type { Job} from '../src/index.js';
import { Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: rate limiting', () => {
  it('limiter { max: 2, duration: 500 } runs at most 2 jobs per window, for the whole queue', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const starts: number[] = [];
    const worker = closing(new Worker(name, async () => { starts.push(Date.now()); }, { connection, limiter: { max: 2, duration: 500 }, concurrency: 4 }));
    await worker.waitUntilReady();
    await queue.addBulk([1, 2, 3, 4, 5].map((n) => ({ name: 'paint', data: { n } })));
    while (starts.length < 5) await nextEvent(worker, 'completed');
    // Five jobs at two per 500 ms window need at least two full windows.
    expect(starts[4]! - starts[0]!).toBeGreaterThanOrEqual(900);
    // BullMQ's answer: the window's ms left while it is full, 0 once it is not.
    const ttl = await queue.getRateLimitTtl(2);
    expect(ttl).toBeGreaterThanOrEqual(0);
  });

  it('getRateLimitTtl answers -2 on a queue that is not rate limited, 0 under a limit not reached, as BullMQ does', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    expect(await queue.getRateLimitTtl()).toBe(-2);
    expect(await queue.getRateLimitTtl(2)).toBe(0);
    await queue.setGlobalRateLimit(2, 60_000);
    expect(await queue.getRateLimitTtl()).toBe(0);
    // queue.rateLimit closes the window; removeRateLimitKey opens it again.
    await queue.rateLimit(30_000);
    expect(await queue.getRateLimitTtl()).toBeGreaterThan(20_000);
    expect(await queue.removeRateLimitKey()).toBe(1);
    expect(await queue.getRateLimitTtl()).toBe(0);
  });

  it('worker.rateLimit(ms) + Worker.RateLimitError() puts the job back; it runs after the limit, not failed', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let calls = 0;
    const started = Date.now();
    const worker: Worker<unknown, number> = closing(new Worker(name, async () => {
      calls++;
      if (calls === 1) {
        await worker.rateLimit(300);
        throw Worker.RateLimitError();
      }
      return Date.now();
    }, { connection, limiter: { max: 1, duration: 50 } }));
    const failed: unknown[] = [];
    worker.on('failed', (j) => failed.push(j));
    const completed = nextEvent<[Job, number]>(worker, 'completed');
    await queue.add('call-api', {});
    const [done, ranAt] = await completed;
    expect(ranAt - started).toBeGreaterThanOrEqual(290);
    expect(calls).toBe(2);
    // The start that hit the limit is not an attempt made (BullMQ's count), though it was started.
    expect([done.attemptsMade, done.attemptsStarted]).toEqual([1, 2]);
    expect(failed).toEqual([]);
  });
  it('queue.rateLimit(ms) holds the workers of a rate-limited queue off it until the limit ends', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => Date.now(), { connection, limiter: { max: 100, duration: 1000 } }));
    await worker.waitUntilReady();
    const limitedAt = Date.now();
    await queue.rateLimit(400);
    await queue.add('paint', {});
    const [, ranAt] = await nextEvent<[Job, number]>(worker, 'completed');
    expect(ranAt - limitedAt).toBeGreaterThanOrEqual(390);
  });

  it('a job put back by Worker.RateLimitError() waits (prioritized), first among its equals, while the limit holds', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker: Worker = closing(new Worker(name, async (): Promise<unknown> => {
      await worker.rateLimit(2000);
      throw Worker.RateLimitError();
    }, { connection, limiter: { max: 1, duration: 100 } }));
    await worker.waitUntilReady();
    for (const n of ['1', '2', '3']) await queue.add(n, {}, { priority: 10 });
    // The first job ran, hit the limit and went back: nothing is delayed, and the order is kept.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await queue.getDelayedCount()).toBe(0);
    expect((await queue.getJobs(['prioritized'], 0, -1, true)).map((job) => job.name)).toEqual(['1', '2', '3']);
  });

  it('a rate-limited job removed meanwhile is reported on the worker as BullMQ\'s missing key', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => {
      await queue.obliterate({ force: true });
      throw Worker.RateLimitError();
    }, { connection, limiter: { max: 1, duration: 100 } }));
    const error = nextEvent<[Error]>(worker, 'error');
    const job = await queue.add('gone', {});
    expect((await error)[0].message).toBe(`Missing key for job ${job.id}. moveJobFromActiveToWait`);
  });
});
