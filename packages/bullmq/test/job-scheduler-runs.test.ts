import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('job schedulers make their next job as BullMQ does', () => {
  it('upsert answers the job of the first run: waiting now for every, delayed to the next match for a pattern', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const before = Date.now();
    const now = await queue.upsertJobScheduler('tick', { every: 60_000 }, { name: 'tick-job', data: { a: 1 } });
    expect(now?.id).toMatch(/^repeat:tick:\d+$/);
    expect(await now?.getState()).toBe('waiting');
    const cron = await queue.upsertJobScheduler('nightly', { pattern: '0 0 3 * * *' }, { data: { b: 2 } });
    expect(await cron?.getState()).toBe('delayed');
    const scheduler = await queue.getJobScheduler('nightly');
    expect(scheduler).toMatchObject({ key: 'nightly', name: 'nightly', pattern: '0 0 3 * * *', iterationCount: 1, template: { data: { b: 2 } } });
    expect(cron?.id).toBe(`repeat:nightly:${String(scheduler?.next)}`);
    expect(scheduler?.next).toBeGreaterThan(before);
    expect(await queue.getDelayedCount()).toBe(1);
  });

  it('the next job is made, delayed by every, when the one before starts; the count goes up', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const first = await queue.upsertJobScheduler('beat', { every: 60_000 }, { data: 'x' });
    const worker = closing(new Worker(name, async () => 'ok', { connection }));
    const [done] = await nextEvent<[Job]>(worker, 'completed');
    expect(done.id).toBe(first?.id);
    const delayed = await queue.getDelayed();
    expect(delayed).toHaveLength(1);
    const millis = Number((first?.id ?? '').split(':')[2]);
    expect(delayed[0]?.id).toBe(`repeat:beat:${String(millis + 60_000)}`);
    expect(await queue.getJobScheduler('beat')).toMatchObject({ every: 60_000, iterationCount: 2, next: millis + 60_000 });
  });

  it('upserting again replaces the waiting job; removing the scheduler removes its delayed job', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.upsertJobScheduler('s', { pattern: '0 0 3 * * *' }, { data: 1 });
    await queue.upsertJobScheduler('s', { pattern: '0 0 4 * * *' }, { data: 2 });
    const delayed = await queue.getDelayed();
    expect(delayed.map((j) => j.data)).toEqual([2]);
    expect(await queue.getJobSchedulersCount()).toBe(1);
    expect(await queue.removeJobScheduler('s')).toBe(true);
    expect(await queue.getDelayedCount()).toBe(0);
    expect(await queue.removeJobScheduler('s')).toBe(false);
  });

  it('every with an offset falls on that slot of each period; a custom repeatStrategy computes pattern runs', async () => {
    const strategy = (millis: number): number => millis + 12_345;
    const queue = closing(new Queue(queueName(), { connection, settings: { repeatStrategy: strategy } }));
    const before = Date.now();
    const offset = await queue.upsertJobScheduler('slot', { every: 60_000, offset: 7_000 }, {});
    expect(Number((offset?.id ?? '').split(':')[2]) % 60_000).toBe(7_000);
    const custom = await queue.upsertJobScheduler('custom', { pattern: 'anything' }, {});
    const at = Number((custom?.id ?? '').split(':')[2]);
    expect(at - before).toBeGreaterThanOrEqual(12_345);
    expect(at - Date.now()).toBeLessThanOrEqual(12_345);
  });

  it("refuses BullMQ's bad repeat options with its texts, writing nothing", async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await expect(queue.upsertJobScheduler('e', { every: 100, endDate: Date.now() - 1000 })).rejects.toThrow('End date must be greater than current timestamp');
    await expect(queue.upsertJobScheduler('p', { every: 100, pattern: '* * * * *' })).rejects.toThrow('Both .pattern and .every options are defined for this repeatable job');
    await expect(queue.upsertJobScheduler('i', { pattern: '* * * * *', immediately: true, startDate: Date.now() })).rejects.toThrow('Both .immediately and .startDate options are defined for this repeatable job');
    expect(await queue.getJobSchedulersCount()).toBe(0);
  });
});
