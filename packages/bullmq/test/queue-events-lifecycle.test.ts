import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('QueueEvents: added, duplicated, retries-exhausted', () => {
  it('added names each new job, waiting or delayed; duplicated names a jobId already held', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const events = closing(new QueueEvents(name, { connection }));
    const added: { jobId: string; name: string }[] = [];
    events.on('added', (args) => added.push(args));
    await events.waitUntilReady();
    const duplicated = nextEvent<[{ jobId: string }]>(events, 'duplicated');
    await queue.add('now', 1, { jobId: 'first' });
    await queue.add('later', 2, { jobId: 'second', delay: 60_000 });
    await queue.add('now', 3, { jobId: 'first' });
    expect((await duplicated)[0]).toEqual({ jobId: 'first' });
    await expect.poll(() => added).toEqual([{ jobId: 'first', name: 'now' }, { jobId: 'second', name: 'later' }]);
  });

  it('retries-exhausted comes with the final failure, not with a failure that retries', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const events = closing(new QueueEvents(name, { connection }));
    const exhausted: { jobId: string; attemptsMade: string }[] = [];
    events.on('retries-exhausted', (args) => exhausted.push(args));
    await events.waitUntilReady();
    const failed = nextEvent<[{ jobId: string }]>(events, 'failed');
    closing(new Worker(name, async () => { throw new Error('boom'); }, { connection }));
    await queue.add('x', 1, { jobId: 'twice', attempts: 2 });
    expect((await failed)[0].jobId).toBe('twice');
    await expect.poll(() => exhausted).toEqual([{ jobId: 'twice', attemptsMade: '2' }]);
  });
});
