import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, QueueEvents, Worker, type Job } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('flow nodes with a jobId', () => {
  it('each node keeps its jobId: getJob finds it, children name their parent by it, values are keyed by it', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const parents = closing(new Queue(parentName, { connection }));
    const children = closing(new Queue(childName, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: parentName, opts: { jobId: 'order 42' }, children: [
      { name: 'pick', queueName: childName, data: 1, opts: { jobId: 'pick-42' } },
      { name: 'pack', queueName: childName, data: 2 },
    ] });
    expect(tree.job.id).toBe('order 42');
    expect(tree.children?.[0]?.job.id).toBe('pick-42');
    expect((await parents.getJob('order 42'))?.name).toBe('top');
    const pick = await children.getJob('pick-42');
    expect(pick?.parent).toEqual({ id: 'order 42', queueKey: `bull:${parentName}` });
    const packId = tree.children?.[1]?.job.id ?? '';
    expect(await tree.job.getDependencies()).toEqual({ processed: {}, unprocessed: [`bull:${childName}:pick-42`, `bull:${childName}:${packId}`], ignored: {}, failed: [] });

    const values = new Promise<Record<string, unknown>>((resolve, reject) => {
      closing(new Worker(parentName, async (job: Job) => resolve(await job.getChildrenValues()), { connection })).on('error', reject);
    });
    closing(new Worker(childName, async (job: Job) => `done ${String(job.data)}`, { connection }));
    expect(await values).toEqual({ [`bull:${childName}:pick-42`]: 'done 1', [`bull:${childName}:${packId}`]: 'done 2' });
  });

  it('a flow child whose jobId names a job of its queue links that job; in another queue, or with a parent, it is refused', async () => {
    const name = queueName('taken');
    const queue = closing(new Queue(name, { connection }));
    const existing = await queue.add('first', {}, { jobId: 'taken' });
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: name, children: [{ name: 'c', queueName: name, opts: { jobId: 'taken' } }] });
    expect(tree.children?.[0]?.job.id).toBe('taken');
    expect(await queue.count()).toBe(2);
    expect(await tree.job.getDependenciesCount({ unprocessed: true })).toEqual({ unprocessed: 1 });
    expect(await existing.getState()).toBe('waiting');

    await expect(flow.add({ name: 'again', queueName: name, children: [{ name: 'c', queueName: name, opts: { jobId: 'taken' } }] })).rejects.toThrow(/taken/);
    const elsewhere = queueName('elsewhere');
    await expect(flow.add({ name: 'top', queueName: elsewhere, children: [{ name: 'c', queueName: name, opts: { jobId: 'taken' } }] })).rejects.toThrow(/taken/);
    expect(await queue.getJobCountByTypes('waiting', 'waiting-children')).toBe(2);
  });

  it('a flow child whose jobId names a completed job counts as done: the parent runs and reads its value', async () => {
    const name = queueName('done');
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    await queue.add('first', 1, { jobId: 'mon' });
    const worker = closing(new Worker(name, async (job: Job) => (job.name === 'top' ? job.getChildrenValues() : `done ${String(job.data)}`), { connection }));
    await new Promise<void>((resolve) => worker.once('completed', () => resolve()));
    const tree = await flow.add({ name: 'top', queueName: name, children: [{ name: 'mon', queueName: name, opts: { jobId: 'mon' } }] });
    await expect.poll(() => tree.job.getState()).toBe('completed');
    expect((await queue.getJob(tree.job.id))?.returnvalue).toEqual({ [`bull:${name}:mon`]: 'done 1' });
  });

  it('a job added under a flow child with another parent is refused with BullMQ\'s text', async () => {
    const name = queueName('reparent');
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    await flow.add({ name: 'tue', queueName: name, opts: { jobId: 'tue' }, children: [{ name: 'mon', queueName: name, opts: { jobId: 'mon' } }] });
    await queue.add('wed', {}, { jobId: 'wed' });
    await expect(queue.add('mon', {}, { jobId: 'mon', parent: { id: 'wed', queue: `bull:${name}` } })).rejects.toThrow(`The parent job bull:${name}:wed cannot be replaced. addJob`);
  });
});

describe('a parent its child fails', () => {
  it('fails with "child <key> failed", heard as failed, up the tree', async () => {
    const topName = queueName('top');
    const midName = queueName('mid');
    const lowName = queueName('low');
    const events = closing(new QueueEvents(topName, { connection }));
    await events.waitUntilReady();
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: topName, children: [
      { name: 'mid', queueName: midName, opts: { failParentOnFailure: true }, children: [{ name: 'low', queueName: lowName, opts: { failParentOnFailure: true } }] },
    ] });
    const heard = new Promise<{ jobId: string; failedReason: string }>((resolve) => {
      events.on('failed', (args) => {
        if (args.jobId === tree.job.id) resolve(args);
      });
    });
    closing(new Worker(lowName, async () => {
      throw new Error('broken');
    }, { connection }));
    closing(new Worker(midName, async () => 'never', { connection }));
    const mid = tree.children?.[0];
    const low = mid?.children?.[0];
    expect(await heard).toMatchObject({ jobId: tree.job.id, failedReason: `child bull:${midName}:${mid?.job.id ?? ''} failed` });
    const midJob = await closing(new Queue(midName, { connection })).getJob(mid?.job.id ?? '');
    expect(midJob?.failedReason).toBe(`child bull:${lowName}:${low?.job.id ?? ''} failed`);
    expect(await midJob?.getState()).toBe('failed');
  });
});
