import { describe, expect, it } from 'vitest';
import { DelayedError, Job, Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: delayed jobs', () => {
  it('a job added with delay: 300 runs no earlier than 300 ms later', async () => {
    const name = queueName();
    const myQueue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => Date.now(), { connection }));
    const completed = nextEvent<[Job, number]>(worker, 'completed');
    const added = Date.now();
    await myQueue.add('house', { color: 'white' }, { delay: 300 });
    const [, ranAt] = await completed;
    expect(ranAt - added).toBeGreaterThanOrEqual(290);
  });

  it('changeDelay reschedules a delayed job from now; promote runs it at once', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const job = await Job.create(queue, 'test', { foo: 'bar' }, { delay: 60_000 });
    await job.changeDelay(120_000);
    expect(await job.getState()).toBe('delayed');
    expect(job.delay).toBe(120_000);
    const worker = closing(new Worker(name, async () => 'now', { connection }));
    const completed = nextEvent(worker, 'completed');
    await job.promote();
    expect(job.delay).toBe(0);
    await completed;
  });

  it('job.moveToDelayed(timestamp, token) + DelayedError parks the job; it runs again later', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const runs: number[] = [];
    const worker = closing(new Worker(name, async (job, token) => {
      runs.push(Date.now());
      if (runs.length === 1) {
        await job.moveToDelayed(Date.now() + 200, token);
        throw new DelayedError();
      }
      return 'stepped';
    }, { connection }));
    const failed: unknown[] = [];
    worker.on('failed', (j) => failed.push(j));
    const completed = nextEvent<[Job, unknown]>(worker, 'completed');
    await queue.add('step', {});
    expect((await completed)[1]).toBe('stepped');
    expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(190);
    expect(failed).toEqual([]);
  });
});
