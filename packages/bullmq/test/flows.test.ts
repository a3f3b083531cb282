import { describe, expect, it } from 'vitest';
import { FlowProducer, NotSupportedError, Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: flows', () => {
  it('the parent runs after every child, across queues, and reads their values', async () => {
    const renovate = queueName('renovate');
    const steps = queueName('steps');
    const flowProducer = closing(new FlowProducer({ connection }));
    const flow = await flowProducer.add({
      name: 'renovate-interior',
      queueName: renovate,
      children: [
        { name: 'paint', data: { place: 'ceiling' }, queueName: steps },
        { name: 'paint', data: { place: 'walls' }, queueName: steps },
        { name: 'fix', data: { place: 'floor' }, queueName: steps },
      ],
    });
    expect(flow.job.name).toBe('renovate-interior');
    expect(flow.children?.map((c) => [c.job.name, c.job.data])).toEqual([
      ['paint', { place: 'ceiling' }],
      ['paint', { place: 'walls' }],
      ['fix', { place: 'floor' }],
    ]);
    expect(await flow.job.getState()).toBe('waiting-children');
    const done: string[] = [];
    closing(new Worker(steps, async (job) => {
      done.push(`${job.name} ${(job.data as { place: string }).place}`);
      return (job.data as { place: string }).place;
    }, { connection }));
    const parentWorker = closing(new Worker(renovate, async (job: Job) => {
      const values = await job.getChildrenValues<string>();
      return Object.values(values).sort();
    }, { connection }));
    const [, result] = await nextEvent<[Job, unknown]>(parentWorker, 'completed');
    expect(done.sort()).toEqual(['fix floor', 'paint ceiling', 'paint walls']);
    expect(result).toEqual(['ceiling', 'floor', 'walls']);
  });

  it('failParentOnFailure: a failing child fails its parent', async () => {
    const top = queueName('top');
    const kids = queueName('kids');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({
      name: 'root-job',
      queueName: top,
      data: {},
      children: [
        { name: 'child-job', data: { idx: 0, foo: 'bar' }, queueName: kids, opts: { failParentOnFailure: true } },
      ],
    });
    closing(new Worker(kids, async () => { throw new Error('child broke'); }, { connection }));
    const topQueue = closing(new Queue(top, { connection }));
    for (let i = 0; i < 100 && (await tree.job.getState()) !== 'failed'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await tree.job.getState()).toBe('failed');
    expect(await topQueue.getFailedCount()).toBe(1);
  });

  it('continueParentOnFailure: a failing child lets its parent run at once, while a sibling is still open', async () => {
    const top = queueName('top');
    const kids = queueName('kids');
    const slow = queueName('slow');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({
      name: 'root-job',
      queueName: top,
      data: {},
      children: [
        { name: 'child-job', data: { idx: 0 }, queueName: kids, opts: { continueParentOnFailure: true } },
        { name: 'never-run', data: { idx: 1 }, queueName: slow },
      ],
    });
    closing(new Worker(kids, async () => { throw new Error('child broke'); }, { connection }));
    const parentRan = new Promise<string>((resolve) => {
      closing(new Worker(top, async (job) => { resolve(job.name); return 'ran'; }, { connection }));
    });
    expect(await parentRan).toBe('root-job');
    expect(tree.job.name).toBe('root-job');
  });

  it('options the flow admission cannot carry are refused before anything is added', async () => {
    const name = queueName();
    const flow = closing(new FlowProducer({ connection }));
    await expect(flow.add({ name: 'p', queueName: name, children: [{ name: 'c', queueName: name, opts: { deduplication: { id: 'd' } } }] })).rejects.toBeInstanceOf(NotSupportedError);
    const queue = closing(new Queue(name, { connection }));
    expect(await queue.getJobCountByTypes('waiting', 'waiting-children')).toBe(0);
  });
});
