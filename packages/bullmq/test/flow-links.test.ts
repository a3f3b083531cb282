import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker, type Job } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('flow links, as BullMQ shows them', () => {
  it('children know their parent; the parent reads its dependencies and children values keyed bull:<queue>:<id>', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const parents = closing(new Queue(parentName, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: parentName, data: {}, children: [
      { name: 'one', queueName: childName, data: 1 },
      { name: 'two', queueName: childName, data: 2 },
    ] });
    const [one, two] = (tree.children ?? []).map((node) => node.job);
    expect(one?.parent).toEqual({ id: tree.job.id, queueKey: `bull:${parentName}` });
    expect(one?.parentKey).toBe(`bull:${parentName}:${tree.job.id}`);
    expect(parents.toKey(tree.job.id)).toBe(`bull:${parentName}:${tree.job.id}`);
    expect(await tree.job.isWaitingChildren()).toBe(true);
    expect(await parents.getWaitingChildrenCount()).toBe(1);
    const keyOne = `bull:${childName}:${one?.id ?? ''}`;
    const keyTwo = `bull:${childName}:${two?.id ?? ''}`;
    expect(await tree.job.getDependencies()).toEqual({ processed: {}, unprocessed: [keyOne, keyTwo], ignored: {}, failed: [] });

    const seen = new Promise<{ values: Record<string, unknown>; counts: unknown }>((resolve, reject) => {
      closing(new Worker(parentName, async (job: Job) => {
        resolve({ values: await job.getChildrenValues(), counts: await job.getDependenciesCount() });
      }, { connection }));
      closing(new Worker(childName, async (job: Job) => `done ${String(job.data)}`, { connection })).on('error', reject);
    });
    const { values, counts } = await seen;
    expect(values).toEqual({ [keyOne]: 'done 1', [keyTwo]: 'done 2' });
    expect(counts).toEqual({ processed: 2, unprocessed: 0, ignored: 0, failed: 0 });
  });

  it('getDependencies(opts) answers a page of each kind asked and the cursor of the next page', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: parentName, children: [1, 2, 3].map((n) => ({ name: `c${String(n)}`, queueName: childName, data: n })) });
    const keys = (tree.children ?? []).map((node) => `bull:${childName}:${node.job.id}`);
    expect(await tree.job.getDependencies({ unprocessed: { count: 2 } })).toEqual({ unprocessed: keys.slice(0, 2), nextUnprocessedCursor: 2 });
    expect(await tree.job.getDependencies({ unprocessed: { cursor: 2, count: 2 }, processed: {} })).toEqual({
      unprocessed: keys.slice(2),
      nextUnprocessedCursor: 0,
      processed: {},
      nextProcessedCursor: 0,
    });
    await expect(tree.job.getDependencies({ unprocessed: { count: 0 } })).rejects.toThrow(/count/);
  });
});
