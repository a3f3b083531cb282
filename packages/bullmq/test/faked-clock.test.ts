import { afterEach, describe, expect, it, vi } from 'vitest';
import { Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('an application that fakes its clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('moving the faked clock a day on while a worker connects does not time the connection out', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.waitUntilReady();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const worker = closing(new Worker(name, async (job: Job) => job.data, { connection }));
    // The connection deadline (10 s) is on the host's own clock, not the application's.
    vi.advanceTimersByTime(24 * 3600_000);
    await worker.waitUntilReady();
    const done = nextEvent<[Job, unknown]>(worker, 'completed');
    await queue.add('after a day', 'ok');
    expect((await done)[1]).toBe('ok');
  });
});
