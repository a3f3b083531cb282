import { Queue as EchoQueue } from '@echo/queue';
import { useRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@echo/protocol/queue';
import { Queue, Worker } from '../src/index.js';
import { closing, nextEvent, onCluster, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(onCluster)('worker options skipLockRenewal and skipStalledCheck', () => {
  it('skipLockRenewal: a job running past lockDuration is taken back as stalled and run again', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const job = await queue.add('slow', {});
    let starts = 0;
    const worker = closing(
      new Worker(
        name,
        async () => {
          starts += 1;
          if (starts === 1) await sleep(1200);
          return starts;
        },
        { connection, skipLockRenewal: true, lockDuration: 300, stalledInterval: 100, maxStalledCount: 1, concurrency: 2 },
      ),
    );
    const [stalledId] = await nextEvent<[string]>(worker, 'stalled');
    expect(stalledId).toBe(job.id);
    const [done, result] = await nextEvent<[{ id: string }, number]>(worker, 'completed');
    expect([done.id, result]).toEqual([job.id, 2]);
  });

  it('skipStalledCheck: the worker leaves a job whose lock lapsed where it is', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const job = await queue.add('orphan', {});
    // A worker that takes the job and dies: a bare lease of 100 ms that nobody extends or settles.
    const dead = closing(await EchoQueue.open(name, { connect: (await useRedis()).url }));
    expect(await dead.leases().claim(100)).toBeDefined();
    const worker = closing(new Worker(name, async () => 'ran', { connection, skipStalledCheck: true, stalledInterval: 50 }));
    let stalls = 0;
    worker.on('stalled', () => (stalls += 1));
    await worker.waitUntilReady();
    await sleep(500);
    expect(stalls).toBe(0);
    expect(await job.getState()).toBe('active');
  });

  it('refuses a switch that is not a boolean, before anything opens', () => {
    expect(() => new Worker(queueName(), null, { connection, skipLockRenewal: 'yes' as unknown as boolean })).toThrow(InvalidArgumentError);
    expect(() => new Worker(queueName(), null, { connection, skipStalledCheck: 1 as unknown as boolean })).toThrow('skipStalledCheck must be a boolean');
  });
});

describe('worker option maximumRateLimitDelay', () => {
  it('a rate-limited worker looks again within maximumRateLimitDelay: a lifted limit is seen at once', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.setGlobalRateLimit(1, 10_000);
    const done: number[] = [];
    const worker = closing(new Worker(name, async () => done.push(Date.now()), { connection, drainDelay: 5, maximumRateLimitDelay: 200 }));
    await worker.waitUntilReady();
    // Listening before the jobs go in: the first may complete before `addBulk`'s reply is read.
    const first = nextEvent(worker, 'completed');
    await queue.addBulk([{ name: 'a', data: {} }, { name: 'b', data: {} }]);
    await first;
    // The second job waits on the limit's ten-second window; lifting the limit frees it.
    await sleep(300);
    const second = nextEvent(worker, 'completed');
    const lifted = Date.now();
    await queue.removeGlobalRateLimit();
    await second;
    expect(Date.now() - lifted).toBeLessThan(2000);
  });

  it('refuses a maximumRateLimitDelay that is not a positive number, with BullMQ-style text', () => {
    expect(() => new Worker(queueName(), null, { connection, maximumRateLimitDelay: 0 })).toThrow('maximumRateLimitDelay must be greater than 0');
    expect(() => new Worker(queueName(), null, { connection, maximumRateLimitDelay: '5' as unknown as number })).toThrow(InvalidArgumentError);
  });
});
