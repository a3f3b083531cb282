import { describe, expect, it } from 'vitest';
import { getNextMillis, Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe("a job scheduler's jobs, as BullMQ shows and keeps them", () => {
  it('each job carries the scheduler id, its run and its iteration count in opts', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const first = await queue.upsertJobScheduler('beat', { every: 60_000 }, { data: { n: 1 } });
    const millis = Number((first?.id ?? '').split(':')[2]);
    expect(first?.repeatJobKey).toBe('beat');
    expect(first?.opts).toMatchObject({ repeatJobKey: 'beat', prevMillis: millis, repeat: { every: 60_000, count: 1 } });
    const worker = closing(new Worker(name, async (job: Job) => job.opts.repeat?.count, { connection }));
    const [, result] = await nextEvent<[Job, unknown]>(worker, 'completed');
    expect(result).toBe(1);
    const [next] = await queue.getDelayed();
    expect(next?.opts).toMatchObject({ repeatJobKey: 'beat', prevMillis: millis + 60_000, repeat: { count: 2 } });
  });

  it('a scheduler without data or options shows no template; two upserts of one pattern at once make one job', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const [a, b] = await Promise.all([
      queue.upsertJobScheduler('nightly', { pattern: '0 0 3 * * *' }),
      queue.upsertJobScheduler('nightly', { pattern: '0 0 3 * * *' }),
    ]);
    expect(a?.id).toBe(b?.id);
    expect(await queue.getDelayedCount()).toBe(1);
    const scheduler = await queue.getJobScheduler('nightly');
    expect(scheduler).toBeDefined();
    expect(scheduler).not.toHaveProperty('template');
  });

  it("the scheduler's next job is refused to job.remove and survives drain and clean", async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const made = await queue.upsertJobScheduler('keep', { every: 5_000 });
    await queue.add('plain', { n: 1 });
    const job = await queue.getJob(made?.id ?? '');
    await expect(job?.remove()).rejects.toThrow(`Job ${made?.id ?? ''} belongs to a job scheduler and cannot be removed directly. remove`);
    expect(await queue.clean(0, 100, 'wait')).toHaveLength(1);
    expect((await queue.getWaiting()).map((j) => j.id)).toEqual([made?.id]);
    await queue.add('plain', { n: 2 }, { delay: 60_000 });
    await queue.drain(true);
    expect((await queue.getWaiting()).map((j) => j.id)).toEqual([made?.id]);
    expect(await queue.getDelayedCount()).toBe(0);
    // Removing the scheduler leaves a job already waiting (it runs once), as BullMQ does.
    expect(await queue.removeJobScheduler('keep')).toBe(true);
    expect(await queue.getWaitingCount()).toBe(1);
    expect(await queue.getJob(made?.id ?? '').then((j) => j?.remove())).toBeUndefined();
    expect(await queue.getWaitingCount()).toBe(0);
  });

  it('a drain leaves a delayed scheduler job delayed, under the same id', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const made = await queue.upsertJobScheduler('nightly', { pattern: '0 0 3 * * *' });
    await queue.drain(true);
    expect((await queue.getDelayed()).map((j) => j.id)).toEqual([made?.id]);
    expect(await queue.getWaitingCount()).toBe(0);
  });

  it('getNextMillis answers the next run of every and of a pattern', () => {
    expect(getNextMillis(125_000, { every: 60_000 })).toBe(180_000);
    expect(getNextMillis(125_000, { every: 60_000, immediately: true })).toBe(120_000);
    expect(getNextMillis(Date.UTC(2024, 0, 1, 10, 0, 30), { pattern: '0 * * * * *', tz: 'UTC' })).toBe(Date.UTC(2024, 0, 1, 10, 1, 0));
    expect(() => getNextMillis(0, { every: 1, pattern: '* * * * *' })).toThrow('Both .pattern and .every options are defined');
  });
});
