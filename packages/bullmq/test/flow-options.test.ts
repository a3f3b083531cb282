import { describe, expect, it } from 'vitest';
import { FlowProducer, NotSupportedError, Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('flows: per-node job options', () => {
  it('children run by their priority (1 first, none before any), the parent after them', async () => {
    const name = queueName('prio');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({
      name: 'parent',
      queueName: name,
      opts: { priority: 4 },
      children: [
        { name: 'third', queueName: name, opts: { priority: 3 } },
        { name: 'second', queueName: name, opts: { priority: 1 } },
        { name: 'first', queueName: name },
      ],
    });
    expect(tree.children?.map((c) => c.job.opts.priority)).toEqual([3, 1, undefined]);
    const ran: string[] = [];
    const worker = closing(new Worker(name, async (job) => { ran.push(job.name); }, { connection, concurrency: 1 }));
    for (;;) {
      const [job] = await nextEvent<[Job]>(worker, 'completed');
      if (job.name === 'parent') break;
    }
    expect(ran).toEqual(['first', 'second', 'third', 'parent']);
  });

  it('a delayed child is delayed, and its parent waits for it', async () => {
    const top = queueName('top');
    const kids = queueName('kids');
    const flow = closing(new FlowProducer({ connection }));
    const added = Date.now();
    const tree = await flow.add({ name: 'parent', queueName: top, children: [{ name: 'later', queueName: kids, opts: { delay: 300 } }] });
    const child = tree.children?.[0]?.job;
    expect(await child?.getState()).toBe('delayed');
    expect(child?.opts.delay).toBe(300);
    closing(new Worker(kids, async () => 'done', { connection }));
    const parentWorker = closing(new Worker(top, async (job: Job) => job.getChildrenValues(), { connection }));
    const [, values] = await nextEvent<[Job, Record<string, unknown>]>(parentWorker, 'completed');
    expect(Object.values(values)).toEqual(['done']);
    expect(Date.now() - added).toBeGreaterThanOrEqual(300);
  });

  it('a root without children is a lone job: waiting, answered without children, deduplicated as Queue.add', async () => {
    const name = queueName('lone');
    const flow = closing(new FlowProducer({ connection }));
    const first = await flow.add({ name: 'solo', queueName: name, data: { n: 1 }, children: [], opts: { deduplication: { id: 'once' } } });
    const again = await flow.add({ name: 'solo', queueName: name, data: { n: 2 }, opts: { deduplication: { id: 'once' } } });
    expect(first).not.toHaveProperty('children');
    expect(again.job.id).toBe(first.job.id);
    const queue = closing(new Queue(name, { connection }));
    expect(await first.job.getState()).toBe('waiting');
    expect(await queue.getJobCountByTypes('waiting')).toBe(1);
  });

  it('refuses deduplication on a node with children (BullMQ text) and a delayed parent, adding nothing', async () => {
    const name = queueName('refuse');
    const flow = closing(new FlowProducer({ connection }));
    await expect(flow.add({ name: 'p', queueName: name, opts: { deduplication: { id: 'd' } }, children: [{ name: 'c', queueName: name }] }))
      .rejects.toThrow('Deduplication options cannot be used on flow nodes with children');
    await expect(flow.add({ name: 'p', queueName: name, children: [{ name: 'n', queueName: name, opts: { deduplication: { id: 'd' } }, children: [{ name: 'c', queueName: name }] }] }))
      .rejects.toThrow('Deduplication options cannot be used on flow nodes with children');
    await expect(flow.add({ name: 'p', queueName: name, opts: { delay: 100 }, children: [{ name: 'c', queueName: name }] })).rejects.toBeInstanceOf(NotSupportedError);
    const queue = closing(new Queue(name, { connection }));
    expect(await queue.getJobCountByTypes('waiting', 'waiting-children', 'delayed', 'prioritized')).toBe(0);
  });

  it('queuesOptions gives the nodes of a queue their defaultJobOptions, under their own; unknown keys are refused', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'p', queueName: parentName, children: [
      { name: 'a', queueName: childName, opts: { priority: 5 } },
      { name: 'b', queueName: childName },
    ] }, { queuesOptions: { [childName]: { defaultJobOptions: { priority: 2 } } } });
    expect(tree.children?.map((node) => node.job.opts.priority)).toEqual([5, 2]);
    await expect(flow.add({ name: 'p', queueName: parentName, children: [{ name: 'c', queueName: childName }] }, { queueOptions: {} } as never)).rejects.toThrow(/queueOptions/);
    await expect(flow.add({ name: 'p', queueName: parentName, children: [{ name: 'c', queueName: childName }] }, { queuesOptions: { [childName]: { defaults: {} } } } as never)).rejects.toThrow(/defaults/);
  });
});
