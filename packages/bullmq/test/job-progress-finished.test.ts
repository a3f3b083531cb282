import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('job progress through the Queue, and waiting for a job that is gone', () => {
  it('queue.updateJobProgress stores the progress and emits progress on the Queue with the job id', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('j', {});
    const heard = new Promise<unknown[]>((resolve) => queue.once('progress', (...args: unknown[]) => resolve(args)));
    await queue.updateJobProgress(job.id, 42);
    expect(await heard).toEqual([job.id, 42]);
    expect((await queue.getJob(job.id))?.progress).toBe(42);
  });

  it('waitUntilFinished on a job already removed at its completion rejects with BullMQ\'s missing key text', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const worker = closing(new Worker(name, async () => 'done', { connection }));
    const completed = nextEvent(worker, 'completed');
    const job = await queue.add('j', {}, { removeOnComplete: true });
    await completed;
    await expect.poll(() => queue.getJob(job.id)).toBeUndefined();
    await expect(job.waitUntilFinished(queueEvents)).rejects.toThrow(`Missing key for job ${queue.toKey(job.id)}. isFinished`);
  });
});
