import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: queues', () => {
  it("add('paint', { color: 'red' }) stores a waiting job a worker picks up", async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const job = await queue.add('paint', { color: 'red' });
    expect(job.name).toBe('paint');
    expect(job.data).toEqual({ color: 'red' });
    expect(await job.getState()).toBe('waiting');
    expect(await queue.getWaitingCount()).toBe(1);
    const worker = closing(new Worker(name, async (j) => `painted ${(j.data as { color: string }).color}`, { connection }));
    const [done, result] = await nextEvent(worker, 'completed');
    expect((done as { id: string }).id).toBe(job.id);
    expect(result).toBe('painted red');
  });

  it('a delayed add waits at least its delay', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('paint', { color: 'blue' }, { delay: 5000 });
    expect(await job.getState()).toBe('delayed');
    expect(await queue.getDelayedCount()).toBe(1);
    expect((await queue.getDelayed()).map((j) => j.id)).toEqual([job.id]);
  });

  it('addBulk adds every job in one call', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const jobs = await queue.addBulk([
      { name: 'paint', data: { color: 'red' } },
      { name: 'paint', data: { color: 'green' }, opts: { jobId: 'green-1' } },
    ]);
    expect(jobs.map((j) => j.id)[1]).toBe('green-1');
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 2 });
    expect((await queue.getJob('green-1'))?.data).toEqual({ color: 'green' });
  });

  it('pause, resume, isPaused; drain empties the waiting list; obliterate deletes the queue', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.add('paint', { color: 'red' });
    await queue.add('paint', { color: 'blue' }, { delay: 60_000 });
    await queue.pause();
    expect(await queue.isPaused()).toBe(true);
    // As since BullMQ 6: a paused queue's jobs stay waiting; its legacy paused count is 0.
    expect(await queue.getJobCounts('paused', 'waiting')).toEqual({ paused: 0, waiting: 1 });
    expect(await queue.getJobCountByTypes('paused', 'waiting', 'delayed')).toBe(2);
    await queue.resume();
    expect(await queue.isPaused()).toBe(false);
    await queue.drain();
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 1 });
    await queue.drain(true);
    expect(await queue.count()).toBe(0);
    await queue.add('paint', { color: 'red' });
    await queue.obliterate();
    expect(await queue.getWaitingCount()).toBe(0);
  });

  it('remove(jobId) removes a job and answers 1, then 0', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.add('paint', { color: 'red' }, { jobId: 'to-remove' });
    expect(await queue.remove('to-remove')).toBe(1);
    expect(await queue.getJob('to-remove')).toBeUndefined();
    expect(await queue.remove('to-remove')).toBe(0);
  });

  it('removeOnComplete: false keeps completed jobs; clean removes them', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection, defaultJobOptions: { removeOnComplete: false } }));
    const job = await queue.add('paint', { color: 'red' });
    const worker = closing(new Worker(name, async () => 'ok', { connection }));
    await nextEvent(worker, 'completed');
    const completed = await queue.getCompleted();
    expect(completed.map((j) => [j.id, j.returnvalue])).toEqual([[job.id, 'ok']]);
    expect(await queue.getCompletedCount()).toBe(1);
    expect(await queue.clean(0, 0, 'completed')).toHaveLength(1);
    expect(await queue.getCompletedCount()).toBe(0);
  });

  it('removeOnComplete: true keeps none (the default here)', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.add('paint', { color: 'red' }, { removeOnComplete: true });
    const worker = closing(new Worker(name, async () => 'ok', { connection }));
    await nextEvent(worker, 'completed');
    expect(await queue.getCompletedCount()).toBe(0);
  });
});
