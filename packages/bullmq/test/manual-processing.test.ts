/**
 * BullMQ's manual processing (a Worker without a processor, jobs taken with getNextJob and settled
 * by hand), job cancellation, logs, and the queue-wide gates, as BullMQ's API offers them.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('manual processing', () => {
  it('a worker with a null processor hands out jobs with getNextJob; moveToCompleted completes them', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, null, { connection }));
    await expect(worker.run()).rejects.toThrow('No process function is defined.');
    const added = await queue.add('paint', { color: 'red' });
    const active = nextEvent<[Job]>(worker, 'active');
    const job = await worker.getNextJob('my-token');
    expect(job?.id).toBe(added.id);
    expect((await active)[0].id).toBe(added.id);
    expect(await job?.getState()).toBe('active');
    await job?.moveToCompleted('painted', 'my-token');
    const read = await queue.getJob(added.id);
    expect(await read?.getState()).toBe('completed');
    expect(read?.returnvalue).toBe('painted');
  });

  it('moveToFailed retries while attempts are left, then fails the job for good', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, null, { connection }));
    const added = await queue.add('paint', {}, { attempts: 2 });
    const first = await worker.getNextJob('t');
    await first?.moveToFailed(new Error('first try'), 't');
    expect(await (await queue.getJob(added.id))?.getState()).toBe('waiting');
    const second = await worker.getNextJob('t');
    expect(second?.attemptsStarted).toBe(2);
    await second?.moveToFailed(new Error('second try'), 't');
    const read = await queue.getJob(added.id);
    expect(await read?.getState()).toBe('failed');
    expect(read?.failedReason).toBe('Error: second try');
  });

  it('fetchNext takes the next waiting job under the same token and answers it as BullMQ\'s raw job data; [] when none or not asked', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, null, { connection }));
    await queue.add('first', { n: 1 });
    const second = await queue.add('second', { n: 2 });
    const first = await worker.getNextJob('tok');
    const next = await first?.moveToCompleted('done', 'tok');
    expect(next?.[1]).toBe(second.id);
    expect(next?.[0]).toMatchObject({ name: 'second', data: JSON.stringify({ n: 2 }), ats: '1' });
    expect(next?.slice(2)).toEqual([0, 0]);
    // The job it answered is active, held for the same token: a read of it settles it by hand.
    const held = await queue.getJob(second.id);
    expect(await held?.getState()).toBe('active');
    expect(await held?.moveToCompleted('done too', 'tok', true)).toEqual([]);
    expect(await held?.getState()).toBe('completed');
    const third = await queue.add('third', {});
    const taken = await worker.getNextJob('tok');
    expect(taken?.id).toBe(third.id);
    expect(await taken?.moveToCompleted('done', 'tok', false)).toEqual([]);
    expect(await queue.getWaitingCount()).toBe(0);
    // A retry without backoff goes straight back to wait and takes no next job, as BullMQ's retry.
    const retried = await queue.add('retried', {}, { attempts: 2 });
    const again = await worker.getNextJob('tok');
    expect(again?.id).toBe(retried.id);
    expect(await again?.moveToFailed(new Error('again'), 'tok', true)).toEqual([]);
    expect(await (await queue.getJob(retried.id))?.getState()).toBe('waiting');
  });

  it('getNextJob with block: false answers undefined at once on an empty queue', async () => {
    const worker = closing(new Worker(queueName(), null, { connection }));
    expect(await worker.getNextJob('t', { block: false })).toBeUndefined();
  });

  it('a job nobody holds is refused with BullMQ\'s missing-lock text', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('paint', {});
    await expect(job.moveToCompleted('x', 'no-token')).rejects.toThrow(`Missing lock for job ${job.id}. moveToFinished`);
  });
});

describe('cancellation, logs and gates', () => {
  it('worker.cancelJob aborts the running job\'s signal; the job fails with what the processor threw', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, (_job, _token, signal) => new Promise((_resolve, reject) => {
      // BullMQ hands the application's reason itself as the signal's reason.
      signal?.addEventListener('abort', () => reject(new Error(`Job was cancelled: ${String(signal.reason)}`)));
    }), { connection }));
    const job = await queue.add('long', {});
    await nextEvent(worker, 'active');
    expect(worker.cancelJob('not-running')).toBe(false);
    const failed = nextEvent<[Job, Error]>(worker, 'failed');
    expect(worker.cancelJob(job.id, 'user asked')).toBe(true);
    const [failedJob, error] = await failed;
    expect(failedJob.id).toBe(job.id);
    expect(error.message).toBe('Job was cancelled: user asked');
  });

  it('getJobLogs answers the lines and their count, sliced and ordered as asked', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('paint', {});
    await job.log('one');
    await queue.addJobLog(job.id, 'two');
    await job.log('three');
    expect(await queue.getJobLogs(job.id)).toEqual({ logs: ['one', 'two', 'three'], count: 3 });
    expect(await queue.getJobLogs(job.id, 0, 1)).toEqual({ logs: ['one', 'two'], count: 3 });
    expect(await queue.getJobLogs(job.id, 0, 0, false)).toEqual({ logs: ['three'], count: 3 });
    expect(await job.getLogs()).toEqual({ logs: ['one', 'two', 'three'], count: 3 });
  });

  it('clearLogs keeps the newest lines asked for, or empties the log', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('paint', {});
    for (const line of ['one', 'two', 'three']) await job.log(line);
    await job.clearLogs(5);
    expect(await queue.getJobLogs(job.id)).toEqual({ logs: ['one', 'two', 'three'], count: 3 });
    await job.clearLogs(2);
    expect(await queue.getJobLogs(job.id)).toEqual({ logs: ['two', 'three'], count: 2 });
    await expect(job.clearLogs(-1)).rejects.toThrow(/keepLogs/);
    expect(await job.getLogs()).toEqual({ logs: ['two', 'three'], count: 2 });
    await job.clearLogs();
    expect(await queue.getJobLogs(job.id)).toEqual({ logs: [], count: 0 });
  });

  it('keepLogs keeps the newest lines at each log, from the job or from addJobLog', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('paint', {}, { keepLogs: 2 });
    expect(job.opts.keepLogs).toBe(2);
    expect(await job.log('one')).toBe(1);
    expect(await job.log('two')).toBe(2);
    expect(await job.log('three')).toBe(2);
    expect(await queue.getJobLogs(job.id)).toEqual({ logs: ['two', 'three'], count: 2 });
    expect(await queue.addJobLog(job.id, 'four')).toBe(2);
    expect(await queue.addJobLog(job.id, 'five', 1)).toBe(1);
    expect(await queue.getJobLogs(job.id)).toEqual({ logs: ['five'], count: 1 });
    await expect(queue.add('paint', {}, { keepLogs: -1 })).rejects.toThrow(/keepLogs/);
    expect(await queue.count()).toBe(1);
  });

  it('global concurrency and rate limit are set, read back and removed', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    expect(await queue.getGlobalConcurrency()).toBeNull();
    expect(await queue.getGlobalRateLimit()).toBeNull();
    await queue.setGlobalConcurrency(4);
    await queue.setGlobalRateLimit(10, 1000);
    expect(await queue.getGlobalConcurrency()).toBe(4);
    expect(await queue.getGlobalRateLimit()).toEqual({ max: 10, duration: 1000 });
    await queue.removeGlobalConcurrency();
    await queue.removeGlobalRateLimit();
    expect(await queue.getGlobalConcurrency()).toBeNull();
    expect(await queue.getGlobalRateLimit()).toBeNull();
  });

  it('a job taken by hand waits for its children with moveToWaitingChildren(token), then refuses the token as BullMQ does', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, null, { connection }));
    await queue.add('parent', {});
    const parent = await worker.getNextJob('p-token');
    if (parent?.id === undefined) throw new Error('no job taken');
    expect(await parent.moveToWaitingChildren('p-token')).toBe(false);
    expect(await parent.getState()).toBe('active');
    await queue.add('child', {}, { parent: { id: parent.id, queue: parent.queueQualifiedName } });
    expect(await parent.moveToWaitingChildren('p-token')).toBe(true);
    expect(await parent.getState()).toBe('waiting-children');
    await expect(parent.moveToWaitingChildren('p-token')).rejects.toThrow(`Missing lock for job ${parent.id}. moveToWaitingChildren`);
    await expect(parent.moveToWaitingChildren('0')).rejects.toThrow(`Job ${parent.id} is not in the active state. moveToWaitingChildren`);
  });

  it('isMaxed answers whether the global concurrency is reached', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, null, { connection }));
    await queue.add('paint', {});
    expect(await queue.isMaxed()).toBe(false);
    await queue.setGlobalConcurrency(1);
    const job = await worker.getNextJob('t');
    expect(await queue.isMaxed()).toBe(true);
    await job?.moveToCompleted('done', 't', false);
    expect(await queue.isMaxed()).toBe(false);
  });

  it('getWorkers lists the live workers of the queue', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => 1, { connection, name: 'painter' }));
    await worker.waitUntilReady();
    // Listening before the job goes in: a ready worker may complete it before `add`'s reply is read.
    const completed = nextEvent(worker, 'completed');
    await queue.add('paint', {});
    await completed;
    const workers = await queue.getWorkers();
    expect(workers.map((w) => w.name)).toContain('painter');
    expect(await queue.getWorkersCount()).toBe(workers.length);
  });
});
