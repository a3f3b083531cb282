import { describe, expect, it } from 'vitest';
import { FlowProducer, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('FlowProducer.getFlow', () => {
  it('reads a flow back across queues and levels, to the depth and child count asked', async () => {
    const top = queueName('top');
    const steps = queueName('steps');
    const flow = closing(new FlowProducer({ connection, prefix: '{app}' }));
    const added = await flow.add({
      name: 'root',
      queueName: top,
      children: [
        { name: 'node', queueName: steps, data: { n: 1 }, children: [{ name: 'leaf', queueName: steps, data: { n: 2 } }] },
        { name: 'side', queueName: steps, data: { n: 3 } },
      ],
    });
    const tree = await flow.getFlow({ id: added.job.id, queueName: top });
    expect(tree?.job.name).toBe('root');
    expect(await tree?.job.isWaitingChildren()).toBe(true);
    const names = (tree?.children ?? []).map((c) => [c.job.name, c.job.queueName, c.children?.map((g) => [g.job.name, g.job.data, g.children])]);
    expect(names.sort()).toEqual([['node', steps, [['leaf', { n: 2 }, undefined]]], ['side', steps, undefined]]);

    const shallow = await flow.getFlow({ id: added.job.id, queueName: top, depth: 2, maxChildren: 1 });
    expect(shallow?.children).toHaveLength(1);
    expect(shallow?.children?.[0]?.children).toBeUndefined();
    expect(await flow.getFlow({ id: 'no-such-job', queueName: top })).toBeUndefined();
  });

  it('keeps completed children in the tree after they ran', async () => {
    const top = queueName('top');
    const kids = queueName('kids');
    const flow = closing(new FlowProducer({ connection }));
    const added = await flow.add({ name: 'root', queueName: top, children: [{ name: 'a', queueName: kids }, { name: 'b', queueName: kids }] });
    closing(new Worker(kids, async (job) => job.name, { connection }));
    const parentWorker = closing(new Worker(top, async () => 'ok', { connection }));
    await nextEvent<[Job]>(parentWorker, 'completed');
    const tree = await flow.getFlow({ id: added.job.id, queueName: top });
    expect(await tree?.job.getState()).toBe('completed');
    expect(tree?.children?.map((c) => c.job.returnvalue).sort()).toEqual(['a', 'b']);
  });
});
