import { describe, expect, it } from 'vitest';
import { JobStateError, Queue, Worker } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

// Applications (and their tests) match BullMQ's refusal texts; each refusal here changes nothing.
describe('refusals in BullMQ words', () => {
  it('a job command on a removed job says the key is missing, naming the command', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('j', { a: 1 });
    await job.remove();
    await expect(job.updateProgress(50)).rejects.toThrow(`Missing key for job ${job.id}. updateProgress`);
    await expect(job.log('line')).rejects.toThrow(`Missing key for job ${job.id}. addLog`);
    await expect(job.updateData({ a: 2 })).rejects.toThrow(`Missing key for job ${job.id}. updateData`);
    await expect(job.changePriority({ priority: 2 })).rejects.toThrow(`Missing key for job ${job.id}. changePriority`);
    await expect(job.clearLogs()).rejects.toBeInstanceOf(JobStateError);
    expect(await queue.getJob(job.id)).toBeUndefined();
  });

  it('promote and changeDelay of a job that is not delayed name the delayed state, and leave it waiting', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('j', {});
    await expect(job.promote()).rejects.toThrow(`Job ${job.id} is not in the delayed state. promote`);
    await expect(job.changeDelay(2000)).rejects.toThrow(`Job ${job.id} is not in the delayed state. changeDelay`);
    expect(await job.getState()).toBe('waiting');
  });

  it('failing by hand a job nobody runs, with attempts left, says it is not active', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('j', {}, { attempts: 3 });
    await expect(job.moveToFailed(new Error('x'), '0', true)).rejects.toThrow(`Job ${job.id} is not in the active state. retryJob`);
    expect(await job.getState()).toBe('waiting');
  });

  it('more than one failure policy on a job is refused with the list, and debounce points to deduplication', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await expect(queue.add('j', {}, { removeDependencyOnFailure: true, ignoreDependencyOnFailure: true })).rejects.toThrow(
      'The following options cannot be used together: removeDependencyOnFailure, ignoreDependencyOnFailure',
    );
    await expect(queue.add('j', {}, { debounce: { id: 'd' } } as never)).rejects.toThrow('Debounce option has been removed. Use deduplication option instead');
    expect(await queue.count()).toBe(0);
  });

  it('an empty jobId is no id: the queue numbers the job', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('j', {}, { jobId: '' });
    expect(job.id).toBe('1');
    expect((await queue.getJob('1'))?.name).toBe('j');
  });

  it('obliterate with a job running is refused in BullMQ words, and the job keeps running', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = closing(new Worker(name, () => held, { connection }));
    const active = new Promise<void>((resolve) => worker.once('active', () => resolve()));
    const job = await queue.add('j', {});
    await active;
    await expect(queue.obliterate()).rejects.toThrow('Cannot obliterate queue with active jobs');
    expect(await job.getState()).toBe('active');
    release();
  });

  it('the job option parent: beside deduplication, or naming a missing parent, is refused in BullMQ words', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const parent = await queue.add('parent', {});
    await expect(queue.add('child', {}, { deduplication: { id: 'd' }, parent: { id: parent.id, queue: `bull:${name}` } })).rejects.toThrow(
      'Deduplication and parent options cannot be used together',
    );
    await expect(queue.add('child', {}, { parent: { id: 'gone', queue: `bull:${name}` } })).rejects.toThrow(`Missing key for parent job bull:${name}:gone. addJob`);
    expect(await queue.count()).toBe(1);
  });
});
