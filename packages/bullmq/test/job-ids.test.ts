import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: job ids', () => {
  it.each(['order-42', 'order#42', 'user@example.com/avatar', 'ünïcødé 🎨', 'x-looks-encoded', 'a'.repeat(300)])('a custom jobId %s is the id the app sees, everywhere', async (jobId) => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const job = await queue.add('paint', { color: 'red' }, { jobId });
    expect(job.id).toBe(jobId);
    expect((await queue.getJob(jobId))?.id).toBe(jobId);
    const worker = closing(new Worker(name, async (j: Job) => j.id, { connection }));
    const [running, result] = await nextEvent<[Job, unknown]>(worker, 'completed');
    expect(running.id).toBe(jobId);
    expect(result).toBe(jobId);
  });

  it('adding a job whose id exists answers the existing job and adds nothing', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.add('paint', { color: 'red' }, { jobId: 'same' });
    const again = await queue.add('paint', { color: 'blue' }, { jobId: 'same' });
    expect(again.id).toBe('same');
    expect(again.data).toEqual({ color: 'red' });
    expect(await queue.getWaitingCount()).toBe(1);
  });

  it('two ids that differ only where the key alphabet cannot go stay two jobs', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.add('p', { n: 1 }, { jobId: 'a#b' });
    await queue.add('p', { n: 2 }, { jobId: 'a/b' });
    expect((await queue.getJob('a#b'))?.data).toEqual({ n: 1 });
    expect((await queue.getJob('a/b'))?.data).toEqual({ n: 2 });
    expect(await queue.getJob('a_b')).toBeUndefined();
  });

  it('a minted id (no jobId) finds its job too', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('p', { n: 1 });
    expect((await queue.getJob(job.id))?.data).toEqual({ n: 1 });
    expect(await queue.getJob('no-such-job')).toBeUndefined();
  });
});
