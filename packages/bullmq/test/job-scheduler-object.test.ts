import { describe, expect, it } from 'vitest';
import { JobScheduler, Queue, QueueEvents, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('queue.jobScheduler, BullMQ\'s JobScheduler of a queue', () => {
  it('is one object per queue that answers the scheduler operations', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const scheduler = await queue.jobScheduler;
    expect(scheduler).toBeInstanceOf(JobScheduler);
    expect(await queue.jobScheduler).toBe(scheduler);
    await scheduler.waitUntilReady();
    const job = await scheduler.upsertJobScheduler('tenant:region:env:service:task', { every: 60_000 }, 'report', { a: 1 });
    expect(job?.id).toMatch(/^repeat:tenant:region:env:service:task:\d+$/);
    expect(await scheduler.isJobScheduler('tenant:region:env:service:task')).toBe(true);
    expect(await scheduler.isJobScheduler('nothing')).toBe(false);
    expect(await scheduler.getSchedulersCount()).toBe(1);
    expect(await scheduler.getScheduler('tenant:region:env:service:task')).toMatchObject({ name: 'report', every: 60_000, template: { data: { a: 1 } } });
    expect((await scheduler.getJobSchedulers()).map((s) => s.key)).toEqual(['tenant:region:env:service:task']);
    expect(await scheduler.removeJobScheduler('tenant:region:env:service:task')).toBe(1);
    expect(await scheduler.removeJobScheduler('tenant:region:env:service:task')).toBe(0);
  });

  it('refuses what queue.upsertJobScheduler refuses, writing nothing', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const scheduler = await queue.jobScheduler;
    await expect(scheduler.upsertJobScheduler('bad', { every: 1000, pattern: '* * * * *' }, 'bad')).rejects.toThrow();
    expect(await queue.getJobSchedulersCount()).toBe(0);
  });

  it('its error events reach the queue\'s error listeners', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const scheduler = await queue.jobScheduler;
    const heard: unknown[] = [];
    queue.on('error', (error) => heard.push(error));
    const boom = new Error('scheduler boom');
    scheduler.emit('error', boom);
    expect(heard).toEqual([boom]);
  });

  it('with override false moves the scheduler on from the job that started, once', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const first = await queue.upsertJobScheduler('beat', { every: 60_000 }, { data: 'x' });
    const scheduler = await queue.jobScheduler;
    const args = ['beat', { every: 60_000 }, 'beat', 'x', {}, { override: false, producerId: first?.id ?? '' }] as const;
    const made = await scheduler.upsertJobScheduler(...args);
    const moved = await queue.getJobScheduler('beat');
    expect(moved?.iterationCount).toBe(2);
    expect(made?.id).toBe(`repeat:beat:${String(moved?.next)}`);
    expect(await made?.getState()).toBe('delayed');
    expect(await scheduler.upsertJobScheduler(...args)).toBeUndefined();
    expect((await queue.getJobScheduler('beat'))?.iterationCount).toBe(2);
    expect(await queue.getDelayedCount()).toBe(1);
  });
});

describe('upserting the scheduler of a paused queue', () => {
  it('leaves its waiting job (BullMQ 6 looks for it in the paused list) and makes the new run beside it', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.pause();
    const first = await queue.upsertJobScheduler('cron', { pattern: '10 * * * * *' });
    await first?.promote();
    expect(await queue.getWaitingCount()).toBe(1);
    await queue.upsertJobScheduler('cron', { pattern: '2 10 * * * *' });
    expect(await queue.getWaitingCount()).toBe(1);
    expect(await queue.getDelayedCount()).toBe(1);
    const worker = closing(new Worker(name, async (job) => job.id, { connection }));
    await queue.resume();
    const [done] = await nextEvent<[Job]>(worker, 'completed');
    expect(done.id).toBe(first?.id);
  });

  it('still replaces a delayed job', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.pause();
    await queue.upsertJobScheduler('cron', { pattern: '10 * * * * *' });
    await queue.upsertJobScheduler('cron', { pattern: '2 10 * * * *' });
    expect(await queue.getDelayedCount()).toBe(1);
    expect(await queue.getWaitingCount()).toBe(0);
  });
});

describe('removed events say where the job was', () => {
  it('prev is delayed for a scheduler\'s delayed job removed with its scheduler, wait for a removed waiting job', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const next = await queue.upsertJobScheduler('cron', { pattern: '0 0 3 * * *' });
    const fromDelayed = nextEvent<[{ jobId: string; prev: string }]>(queueEvents, 'removed');
    await queue.removeJobScheduler('cron');
    expect((await fromDelayed)[0]).toEqual({ jobId: next?.id, prev: 'delayed' });
    const waiting = await queue.add('plain', {});
    const fromWait = nextEvent<[{ jobId: string; prev: string }]>(queueEvents, 'removed');
    await waiting.remove();
    expect((await fromWait)[0]).toEqual({ jobId: waiting.id, prev: 'wait' });
  });
});
