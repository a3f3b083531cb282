/**
 * BullMQ's defaults and its connection and option forms, as a BullMQ application relies on them:
 * an ioredis instance as `connection`, `prefix`, numbered ids, completed jobs kept, and the texts
 * BullMQ refuses bad input with.
 */
import { useRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Job, Queue, QueueEvents, Worker } from '../src/index.js';
import { closing, nextEvent, onCluster, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('BullMQ defaults', () => {
  it('jobs added without a jobId are numbered 1, 2, 3… per queue, and getJob finds them by that id', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const other = closing(new Queue(queueName(), { connection }));
    const first = await queue.add('paint', { n: 1 });
    const second = await queue.add('paint', { n: 2 });
    const bulk = await queue.addBulk([{ name: 'paint', data: { n: 3 } }, { name: 'paint', data: { n: 4 }, opts: { jobId: 'mine' } }, { name: 'paint', data: { n: 5 } }]);
    expect([first.id, second.id, ...bulk.map((j) => j.id)]).toEqual(['1', '2', '3', 'mine', '4']);
    expect((await other.add('paint', {})).id).toBe('1');
    expect((await queue.getJob('2'))?.data).toEqual({ n: 2 });
    expect((await Job.fromId(queue, '4'))?.data).toEqual({ n: 5 });
  });

  it('completed jobs are kept by default, with their return value, as BullMQ keeps them', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => 'done', { connection }));
    // Listening before the job goes in: a ready worker may complete it before `add`'s reply is read.
    const completed = nextEvent(worker, 'completed');
    const job = await queue.add('paint', {});
    await completed;
    expect(await queue.getCompletedCount()).toBe(1);
    const kept = await queue.getJob(job.id);
    expect(await kept?.getState()).toBe('completed');
    expect(kept?.returnvalue).toBe('done');
  });

  it('removeOnComplete: true on the worker still deletes completed jobs', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => 'done', { connection, removeOnComplete: { count: 0 } }));
    await worker.waitUntilReady();
    const completed = nextEvent(worker, 'completed');
    await queue.add('paint', {});
    await completed;
    expect(await queue.getCompletedCount()).toBe(0);
  });
});

describe('BullMQ connection and option forms', () => {
  it.skipIf(onCluster)('an ioredis instance as connection: the queue and the worker reach the same server', async () => {
    const client = (await useRedis()).client();
    try {
      const name = queueName();
      const queue = closing(new Queue(name, { connection: client }));
      const worker = closing(new Worker(name, async (job) => (job.data as { n: number }).n * 2, { connection: client }));
      await queue.add('double', { n: 21 });
      const [, result] = await nextEvent<[Job, number]>(worker, 'completed');
      expect(result).toBe(42);
      // The application's client stays open and its own.
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('prefix: the default (bull, {bull}) names the same queue; another prefix keeps its queue apart', async () => {
    const name = queueName();
    const plain = closing(new Queue(name, { connection }));
    const tagged = closing(new Queue(name, { connection, prefix: '{bull}' }));
    const custom = closing(new Queue(name, { connection, prefix: '{custom}:app' }));
    await plain.add('paint', {});
    expect(await tagged.getWaitingCount()).toBe(1);
    expect(await custom.getWaitingCount()).toBe(0);
    const worker = closing(new Worker(name, async () => 'custom', { connection, prefix: '{custom}:app' }));
    await custom.add('paint', {});
    const [, result] = await nextEvent<[Job, string]>(worker, 'completed');
    expect(result).toBe('custom');
    expect(await plain.getWaitingCount()).toBe(1);
  });

  it('QueueEvents takes blockingTimeout, and with autorun: false listens only after run()', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const events = closing(new QueueEvents(name, { connection, blockingTimeout: 1000, autorun: false }));
    expect(events.isRunning()).toBe(false);
    const running = events.run();
    await events.waitUntilReady();
    await expect(events.run()).rejects.toThrow('Queue Events is already running.');
    const worker = closing(new Worker(name, async () => 'ok', { connection }));
    const completed = nextEvent<[{ jobId: string; returnvalue: unknown }]>(events, 'completed');
    const job = await queue.add('paint', {});
    expect((await completed)[0]).toMatchObject({ jobId: job.id, returnvalue: 'ok' });
    await worker.close();
    await events.close();
    await running;
  });

  it('refuses what BullMQ refuses, with its texts, before anything opens', () => {
    expect(() => new Queue('a:b', { connection })).toThrow('Queue name cannot contain :');
    expect(() => new Queue('', { connection })).toThrow('Queue name must be provided');
    expect(() => new Worker(queueName(), async () => 1, { connection, concurrency: 0 })).toThrow('concurrency must be a finite number greater than 0');
    expect(() => new Worker(queueName(), async () => 1, { connection, concurrency: Number.NaN })).toThrow('concurrency must be a finite number greater than 0');
    expect(() => new Worker(queueName(), async () => 1, { connection, maxStalledCount: -1 })).toThrow('maxStalledCount must be greater or equal than 0');
    expect(() => new Worker(queueName(), async () => 1, { connection, stalledInterval: 0 })).toThrow('stalledInterval must be greater than 0');
  });

  it('refuses the job options BullMQ refuses, with its texts, and adds nothing', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await expect(queue.add('j', {}, { jobId: '42' })).rejects.toThrow('Custom Id cannot be integers');
    await expect(queue.add('j', {}, { jobId: 'a:b' })).rejects.toThrow('Custom Id cannot contain :');
    await expect(queue.add('j', {}, { jobId: '0' })).rejects.toThrow("JobId cannot be '0' or start with '0:'");
    await expect(queue.add('j', {}, { priority: 1.5 })).rejects.toThrow('Priority should not be float');
    await expect(queue.add('j', {}, { priority: 2 ** 21 })).rejects.toThrow('Priority should be between 0 and 2097151');
    await expect(queue.add('j', {}, { deduplication: { id: '' } })).rejects.toThrow('Deduplication id must be provided');
    await expect(queue.add('j', {}, { attempts: 2, backoff: { type: 'fixed', delay: 10, jitter: 2 } })).rejects.toThrow('Jitter should be between 0 and 1');
    expect(await queue.count()).toBe(0);
    expect((await queue.add('j', {}, { priority: 2 ** 21 - 1 })).opts.priority).toBe(2 ** 21 - 1);
  });

  it('job.delay shows the delay a job was added with, and a boolean progress reads back as a boolean', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('later', {}, { delay: 60_000 });
    expect(job.delay).toBe(60_000);
    expect((await queue.getJob(job.id))?.delay).toBe(60_000);
    await job.updateProgress(true);
    expect((await queue.getJob(job.id))?.progress).toBe(true);
  });
});
