import { describe, expect, it } from 'vitest';
import { NotSupportedError, Queue, Worker, type Job } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

/** The next `event` of `worker`, with the job it names. */
function next(worker: { once(event: string, listener: (job: Job | undefined) => void): unknown }, event: 'completed' | 'failed'): Promise<Job> {
  return new Promise((resolve) => worker.once(event, (job: Job | undefined) => resolve(job as Job)));
}

describe('job.retry resetting the attempt counts', () => {
  it('a failed job retried with resetAttemptsMade and resetAttemptsStarted reports its rerun as its first attempt', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let fail = true;
    const worker = closing(new Worker(name, async () => {
      if (fail) throw new Error('not yet');
      return 'done';
    }, { connection }));
    const failed = next(worker, 'failed');
    const job = await queue.add('j', {});
    expect(await failed).toMatchObject({ attemptsMade: 1, attemptsStarted: 1 });
    fail = false;
    const completed = next(worker, 'completed');
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    expect(await completed).toMatchObject({ attemptsMade: 1, attemptsStarted: 1 });
    expect(await queue.getJob(job.id)).toMatchObject({ attemptsMade: 1, attemptsStarted: 1 });
  });

  it('a completed job retried with only resetAttemptsStarted keeps counting attemptsMade', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => 'ok', { connection }));
    const first = next(worker, 'completed');
    const job = await queue.add('j', {});
    await first;
    const second = next(worker, 'completed');
    await job.retry('completed', { resetAttemptsStarted: true });
    expect(await second).toMatchObject({ attemptsMade: 2, attemptsStarted: 1 });
  });

  it('resetAttemptsMade on a job with several attempts is refused and changes nothing; a bad value is refused', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => { throw new Error('no'); }, { connection }));
    const job = await queue.add('j', {}, { attempts: 2 });
    await expect.poll(() => job.getState()).toBe('failed');
    await worker.close();
    await expect(job.retry('failed', { resetAttemptsMade: true })).rejects.toBeInstanceOf(NotSupportedError);
    await expect(job.retry('failed', { resetAttemptsStarted: 'yes' as never })).rejects.toThrow(/resetAttemptsStarted/);
    expect(await job.getState()).toBe('failed');
    expect(await queue.getJob(job.id)).toMatchObject({ attemptsMade: 2, attemptsStarted: 2 });
  });

  it('a retry with a reset of a job not in that state is refused with BullMQ\'s text and changes nothing', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('j', {});
    await expect(job.retry('failed', { resetAttemptsMade: true })).rejects.toThrow(/is not in the failed state/);
    expect(await queue.getJob(job.id)).toMatchObject({ attemptsMade: 0, attemptsStarted: 0 });
  });
});
