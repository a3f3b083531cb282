import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker, type Job } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('retrying a flow child puts it back among its parent’s open children', () => {
  it('a failed child whose failure the parent ignored counts as open again, not ignored', async () => {
    const parents = closing(new Queue(queueName('parent'), { connection }));
    const childName = queueName('child');
    const children = closing(new Queue(childName, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: parents.name, children: [{ name: 'c', queueName: childName, opts: { ignoreDependencyOnFailure: true } }] });
    const worker = closing(new Worker(childName, async () => {
      throw new Error('boom');
    }, { connection }));
    await new Promise<void>((resolve) => worker.once('failed', () => resolve()));
    await worker.close();
    await expect.poll(() => tree.job.getDependenciesCount({ ignored: true, unprocessed: true })).toEqual({ ignored: 1, unprocessed: 0 });

    const child = await children.getJob(tree.children?.[0]?.job.id ?? '');
    await child?.retry('failed');
    expect(await child?.getState()).toBe('waiting');
    expect(await tree.job.getDependenciesCount({ ignored: true, unprocessed: true })).toEqual({ ignored: 0, unprocessed: 1 });
  });

  it('a completed child retried runs before its parent does, and the parent reads its new value', async () => {
    const name = queueName('flow');
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: name, children: [{ name: 'a', queueName: name, data: 1 }, { name: 'b', queueName: name, data: 2 }] });
    const taker = closing(new Worker(name, null, { connection }));
    const first = await taker.getNextJob('token-1');
    await first?.moveToCompleted('first run', 'token-1', false);
    expect(await tree.job.getDependenciesCount({ processed: true, unprocessed: true })).toEqual({ processed: 1, unprocessed: 1 });

    await (await queue.getJob(first?.id ?? ''))?.retry('completed');
    expect(await tree.job.getDependenciesCount({ processed: true, unprocessed: true })).toEqual({ processed: 0, unprocessed: 2 });
    await taker.close();
    const values = new Promise<Record<string, unknown>>((resolve) => {
      closing(new Worker(name, async (job: Job) => (job.name === 'top' ? resolve(await job.getChildrenValues()) : `run of ${String(job.data)}`), { connection }));
    });
    expect(Object.values(await values).sort()).toEqual(['run of 1', 'run of 2']);
  });
});
