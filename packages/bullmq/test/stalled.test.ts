import { Queue as EchoQueue } from '@echo/queue';
import { useRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker } from '../src/index.js';
import { closing, nextEvent, onCluster, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe.skipIf(onCluster)('guide: stalled jobs', () => {
  it('a job whose worker died stalls; with maxStalledCount 0 (no stall survived) it fails at once, and QueueEvents reports stalled then failed', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const job = await queue.add('paint', { color: 'red' }, { jobId: 'will-stall' });
    // A worker that takes the job and dies: a bare lease of 100 ms that nobody extends or settles.
    const dead = closing(await EchoQueue.open(name, { connect: (await useRedis()).url }));
    expect(await dead.leases().claim(100)).toBeDefined();
    const stalled = nextEvent<[{ jobId: string }]>(queueEvents, 'stalled');
    const failed = nextEvent<[{ jobId: string; failedReason: string }]>(queueEvents, 'failed');
    const worker = closing(new Worker(name, async () => 'never', { connection, maxStalledCount: 0, stalledInterval: 50 }));
    const workerStalled = nextEvent<[string]>(worker, 'stalled');
    expect((await stalled)[0].jobId).toBe(job.id);
    expect((await failed)[0]).toMatchObject({ jobId: job.id, failedReason: 'job stalled more than allowable limit' });
    expect(typeof (await workerStalled)[0]).toBe('string');
    expect(await job.getState()).toBe('failed');
  });
});
