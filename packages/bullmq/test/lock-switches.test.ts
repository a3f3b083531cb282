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
