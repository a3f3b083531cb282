import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: prioritized jobs', () => {
  it('lower numbers run first; jobs without priority run before every prioritized one; FIFO within one', async () => {
    const name = queueName();
    const myQueue = closing(new Queue(name, { connection }));
    await myQueue.add('wall', { color: 'pink' }, { priority: 10 });
    await myQueue.add('wall', { color: 'brown' }, { priority: 5 });
    await myQueue.add('wall', { color: 'blue' }, { priority: 7 });
    await myQueue.add('wall', { color: 'white' });
    await myQueue.add('wall', { color: 'grey' }, { priority: 5 });
    const order: string[] = [];
    const worker = closing(new Worker(name, async (job) => { order.push((job.data as { color: string }).color); }, { connection }));
    await nextEvent(worker, 'drained');
    // The wall will be painted first brown, then blue and finally pink.
    expect(order).toEqual(['white', 'brown', 'grey', 'blue', 'pink']);
  });

  it('lifo: a job added with lifo runs before the jobs already waiting (newest first); timestamp is the one given', async () => {
    const name = queueName();
    const myQueue = closing(new Queue(name, { connection }));
    await myQueue.add('wall', { color: 'pink' });
    await myQueue.add('wall', { color: 'brown' });
    await myQueue.add('wall', { color: 'blue' }, { lifo: true });
    const imported = await myQueue.add('wall', { color: 'white' }, { lifo: true, timestamp: 1_700_000_000_000 });
    expect(imported.timestamp).toBe(1_700_000_000_000);
    expect((await myQueue.getJob(imported.id))?.timestamp).toBe(1_700_000_000_000);
    expect((await myQueue.getJob(imported.id))?.opts.timestamp).toBe(1_700_000_000_000);
    const order: string[] = [];
    const worker = closing(new Worker(name, async (job) => { order.push((job.data as { color: string }).color); }, { connection }));
    await nextEvent(worker, 'drained');
    expect(order).toEqual(['white', 'blue', 'pink', 'brown']);
  });

  it('getPrioritized and getWaiting list the pending jobs apart', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const a = await queue.add('wall', { color: 'pink' }, { priority: 10 });
    const b = await queue.add('wall', { color: 'white' });
    expect((await queue.getPrioritized()).map((j) => j.id)).toEqual([a.id]);
    expect((await queue.getWaiting()).map((j) => j.id)).toEqual([b.id]);
    expect(await a.getState()).toBe('prioritized');
    expect(await b.getState()).toBe('waiting');
  });

  it("a priority outside 0..2,097,151 (BullMQ's limit, 2^21 - 1) is refused, on add and on changePriority, changing nothing", async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await expect(queue.add('wall', {}, { priority: -1 })).rejects.toThrow(/priority/);
    await expect(queue.add('wall', {}, { priority: 2 ** 21 })).rejects.toThrow(/priority/i);
    const job = await queue.add('wall', {}, { priority: 16 });
    await expect(job.changePriority({ priority: 2 ** 21 })).rejects.toThrow('Priority should be between 0 and 2097151');
    await expect(job.changePriority({ priority: 1.5 })).rejects.toThrow('Priority should not be float');
    await expect(job.changePriority({ priority: 1, first: true } as never)).rejects.toThrow(/first/);
    expect(job.priority).toBe(16);
    expect((await queue.getJob(job.id))?.priority).toBe(16);
    expect(await queue.count()).toBe(1);
  });

  it('changePriority moves a waiting job: after the jobs at its new priority, or ahead of them with lifo', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.pause();
    const pink = await queue.add('wall', { color: 'pink' }, { priority: 10 });
    await queue.add('wall', { color: 'brown' }, { priority: 5 });
    const blue = await queue.add('wall', { color: 'blue' }, { priority: 7 });
    await queue.add('wall', { color: 'white' });
    await pink.changePriority({ priority: 5 });
    await blue.changePriority({ priority: 5, lifo: true });
    expect(pink.priority).toBe(5);
    expect((await queue.getJob(pink.id))?.priority).toBe(5);
    const order: string[] = [];
    const seen: number[] = [];
    const worker = closing(new Worker(name, async (job) => {
      order.push((job.data as { color: string }).color);
      seen.push(job.priority);
    }, { connection }));
    await worker.waitUntilReady();
    const drained = nextEvent(worker, 'drained');
    await queue.resume();
    await drained;
    expect(order).toEqual(['white', 'blue', 'brown', 'pink']);
    expect(seen).toEqual([0, 5, 5, 5]);
  });

  it('changePriority to 0 makes a prioritized job a plain waiting one; a delayed job stays delayed with its new priority', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('wall', { color: 'pink' }, { priority: 10 });
    await job.changePriority({ priority: 0 });
    expect(await job.getState()).toBe('waiting');
    expect(await queue.getPrioritizedCount()).toBe(0);
    expect((await queue.getWaiting()).map((j) => j.id)).toEqual([job.id]);
    const later = await queue.add('wall', { color: 'blue' }, { delay: 60_000 });
    await later.changePriority({ priority: 3 });
    expect(await later.getState()).toBe('delayed');
    expect((await queue.getJob(later.id))?.priority).toBe(3);
    expect(await queue.getPrioritizedCount()).toBe(0);
  });
});
