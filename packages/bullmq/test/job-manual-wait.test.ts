import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('moveToWait of a job taken by hand', () => {
  it('puts a job taken by getNextJob(token) back to wait, its attemptsMade not grown; another token is refused', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, null, { connection }));
    await queue.add('j', { n: 1 });
    const job = (await worker.getNextJob('tok')) as Job;
    expect(await job.isActive()).toBe(true);
    await expect(job.moveToWait('other')).rejects.toThrow(`Missing lock for job ${job.id}. moveJobFromActiveToWait`);
    expect(await job.isActive()).toBe(true);
    expect(await job.moveToWait('tok')).toBe(0);
    expect(await job.isWaiting()).toBe(true);
    const again = (await worker.getNextJob('tok2')) as Job;
    expect(again.id).toBe(job.id);
    expect(again.attemptsMade).toBe(0);
  });

  it('a job read with getJob cannot be moved from outside its processor', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('j', {});
    await expect((await queue.getJob(job.id))?.moveToWait('t')).rejects.toThrow(/only the worker that holds the job/);
  });
});
