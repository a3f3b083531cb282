import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@echo/protocol/queue';
import { FlowProducer, Queue, QueueEvents, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('queue.clean', () => {
  it('answers the ids it removed, for waiting, delayed and prioritized jobs too, and emits cleaned with them', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const plain = await queue.add('a', 1);
    const delayed = await queue.add('b', 2, { delay: 60_000 });
    const prioritized = await queue.add('c', 3, { priority: 5 });
    const cleaned = new Promise<[string[], string]>((resolve) => queue.once('cleaned', (ids: string[], type: string) => resolve([ids, type])));
    expect(await queue.clean(0, 0, 'wait')).toEqual([plain.id]);
    expect(await cleaned).toEqual([[plain.id], 'wait']);
    expect(await queue.clean(0, 0, 'delayed')).toEqual([delayed.id]);
    expect(await queue.clean(0, 0, 'prioritized')).toEqual([prioritized.id]);
    expect(await queue.getJob(plain.id)).toBeUndefined();
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 0 });
  });

  it('keeps jobs inside the grace period, honours the limit, and QueueEvents hears cleaned with the count', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const events = closing(new QueueEvents(name, { connection }));
    await events.waitUntilReady();
    const worker = closing(new Worker(name, async () => 'ok', { connection }));
    let done = 0;
    const allDone = new Promise<void>((resolve) => worker.on('completed', () => ++done === 3 && resolve()));
    const added = await queue.addBulk([{ name: 'x', data: 1 }, { name: 'x', data: 2 }, { name: 'x', data: 3 }]);
    await allDone;
    expect(await queue.clean(60_000, 0)).toEqual([]);
    const heard = nextEvent<[{ count: string }]>(events, 'cleaned');
    const removed = await queue.clean(0, 2, 'completed');
    expect(removed).toHaveLength(2);
    expect(added.map((j: Job) => j.id)).toEqual(expect.arrayContaining(removed));
    expect((await heard)[0]).toEqual({ count: '2' });
    expect(await queue.getCompletedCount()).toBe(1);
  });

  it('refuses a type BullMQ does not clean and a negative grace, removing nothing', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.add('a', 1);
    await expect(queue.clean(0, 0, 'nope' as 'wait')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(queue.clean(-1, 0, 'wait')).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await queue.getWaitingCount()).toBe(1);
  });

  it("cleaning waiting jobs cleans a flow's parent its removed children released, as BullMQ does", async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    await flow.add({ name: 'parent', queueName: name, data: {}, children: [{ name: 'a', queueName: name, data: {} }, { name: 'b', queueName: name, data: {} }] });
    expect(await queue.count()).toBe(3);
    const removed = await queue.clean(0, 0, 'wait');
    expect(removed).toHaveLength(3);
    expect(await queue.count()).toBe(0);
  });

  it('cleaning or draining the last waiting children of a parent in another queue moves that parent to wait', async () => {
    const parents = closing(new Queue(queueName(), { connection }));
    const children = closing(new Queue(queueName(), { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const child = (n: number) => ({ name: 'child', queueName: children.name, data: n });
    await flow.add({ name: 'cleaned', queueName: parents.name, data: {}, children: [child(1), child(2)] });
    await flow.add({ name: 'prioritized', queueName: parents.name, data: {}, children: [{ ...child(3), opts: { priority: 1 } }] });
    expect(await parents.getJobCountByTypes('waiting-children')).toBe(2);
    expect(await children.clean(0, 0, 'wait')).toHaveLength(2);
    expect(await parents.getJobCountByTypes('wait')).toBe(1);
    expect(await parents.getJobCountByTypes('waiting-children')).toBe(1);
    expect(await children.clean(0, 0, 'prioritized')).toHaveLength(1);
    expect(await parents.getJobCountByTypes('wait')).toBe(2);
    await flow.add({ name: 'drained', queueName: parents.name, data: {}, children: [child(4), child(5)] });
    await children.drain();
    expect(await children.count()).toBe(0);
    expect(await parents.getJobCountByTypes('wait')).toBe(3);
    expect(await parents.getJobCountByTypes('waiting-children')).toBe(0);
    expect(await children.getJobCountByTypes('failed')).toBe(0);
  });
});
