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

  it('a flow whose node jobId already names a job is refused, adding nothing', async () => {
    const name = queueName('taken');
    const queue = closing(new Queue(name, { connection }));
    await queue.add('first', {}, { jobId: 'taken' });
    const flow = closing(new FlowProducer({ connection }));
    await expect(flow.add({ name: 'top', queueName: name, children: [{ name: 'c', queueName: name, opts: { jobId: 'taken' } }] })).rejects.toThrow(/taken/);
    expect(await queue.getJobCountByTypes('waiting', 'waiting-children')).toBe(1);
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
