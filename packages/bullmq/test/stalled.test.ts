import { Queue as EchoQueue } from '@echo/queue';
import { useRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, QueueEvents, Worker, type Job } from '../src/index.js';
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
    const workerFailed = nextEvent<[Job | undefined, Error, string]>(worker, 'failed');
    let failures = 0;
    queueEvents.on('failed', () => (failures += 1));
    expect((await stalled)[0].jobId).toBe(job.id);
    expect((await failed)[0]).toMatchObject({ jobId: job.id, failedReason: 'job stalled more than allowable limit' });
    expect(typeof (await workerStalled)[0]).toBe('string');
    // BullMQ's counts: one stall, one attempt made, and the start that found it past its limit.
    const [failedJob, error, prev] = await workerFailed;
    expect({ stalledCounter: failedJob?.stalledCounter, attemptsMade: failedJob?.attemptsMade, attemptsStarted: failedJob?.attemptsStarted }).toEqual({ stalledCounter: 1, attemptsMade: 1, attemptsStarted: 2 });
    expect([error.message, prev]).toEqual(['job stalled more than allowable limit', 'active']);
    expect(await job.getState()).toBe('failed');
    // The failure is reported once, though Echo's sweep publishes both stalled and failed.
    const completed = nextEvent(worker, 'completed');
    await queue.add('after', {});
    await completed;
    expect(failures).toBe(1);
  });

  it('a child in another queue that dies of stalling has moved its parent (ignoreDependencyOnFailure) by the time its worker reports the failure', async () => {
    const name = queueName();
    const parentName = queueName();
    const flow = closing(new FlowProducer({ connection }));
    closing(new Queue(name, { connection }));
    const { job: parent } = await flow.add({
      name: 'parent',
      queueName: parentName,
      data: {},
      children: [{ name: 'child', queueName: name, data: {}, opts: { ignoreDependencyOnFailure: true } }],
    });
    // A worker that takes the child and dies: a bare lease of 100 ms that nobody extends or settles.
    const dead = closing(await EchoQueue.open(name, { connect: (await useRedis()).url }));
    expect(await dead.leases().claim(100)).toBeDefined();
    const worker = closing(new Worker(name, async () => 'never', { connection, maxStalledCount: 0, stalledInterval: 50 }));
    const states: string[] = [];
    const reported = new Promise<void>((resolve) => {
      worker.once('failed', () => {
        void parent.getState().then((state) => {
          states.push(state);
          resolve();
        });
      });
    });
    await reported;
    expect(states).toEqual(['waiting']);
    // The parent keeps the child's failure in BullMQ's words (Echo records the spec's `stalled`), as
    // does the child's own record.
    const [child] = await closing(new Queue(name, { connection })).getJobs(['failed']);
    expect(child?.failedReason).toBe('job stalled more than allowable limit');
    expect(await parent.getIgnoredChildrenFailures()).toEqual({ [`bull:${name}:${String(child?.id)}`]: 'job stalled more than allowable limit' });
  });
});
