import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker, WaitingChildrenError, type Job } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('the parent job option: a job joins a parent that already exists', () => {
  it('Queue.add under a held flow parent: the parent waits for it too and reads its value', async () => {
    const name = queueName('parent-opt');
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: name, children: [{ name: 'first', queueName: name, data: 1 }] });
    const late = await queue.add('late', 2, { parent: { id: tree.job.id, queue: `bull:${name}` } });
    expect(late.parentKey).toBe(`bull:${name}:${tree.job.id}`);
    expect((await queue.getJob(late.id))?.parent).toEqual({ id: tree.job.id, queueKey: `bull:${name}` });
    const values = new Promise<Record<string, unknown>>((resolve) => {
      closing(new Worker(name, async (job: Job) => {
        if (job.name === 'top') resolve(await job.getChildrenValues());
        return `v${String(job.data)}`;
      }, { connection }));
    });
    expect(await values).toEqual({ [`bull:${name}:${tree.children?.[0]?.job.id ?? ''}`]: 'v1', [`bull:${name}:${late.id}`]: 'v2' });
  });

  it('a step job adds a flow under itself, then waits for it with moveToWaitingChildren', async () => {
    const name = queueName('steps');
    const kids = queueName('steps-kids');
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const done = new Promise<unknown>((resolve) => {
      const worker = closing(new Worker(name, async (job: Job, token?: string) => {
        if (job.data === 'start') {
          await flow.add({ name: 'node', queueName: kids, children: [{ name: 'leaf', queueName: kids }], opts: { parent: { id: job.id, queue: job.queueQualifiedName } } });
          await job.updateData('waiting');
          // The children run only once the parent waits for them: it takes the wait as a step.
          const waits = await job.moveToWaitingChildren(token);
          closing(new Worker(kids, async () => 'kid', { connection }));
          if (waits) throw new WaitingChildrenError();
        }
        return Object.keys(await job.getChildrenValues()).length;
      }, { connection }));
      worker.on('completed', (job: Job, result: unknown) => resolve([result, job.attemptsMade, job.attemptsStarted]));
    });
    await queue.add('step', 'start');
    // The wait for the children is a step: two starts, one attempt made, as BullMQ counts them.
    expect(await done).toEqual([1, 1, 2]);
  });

  it('a step job that returns while the children it added are open fails with BullMQ\'s pending-dependencies text', async () => {
    const stepName = queueName('step');
    const childName = queueName('child');
    const steps = closing(new Queue(stepName, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const failed = new Promise<string>((resolve) => {
      closing(new Worker(stepName, async (job: Job) => {
        await flow.add({ name: 'later', queueName: childName, opts: { parent: { id: job.id, queue: job.queueQualifiedName } } });
        return 'done too soon';
      }, { connection })).on('failed', (_job, error) => resolve(error.message));
    });
    const job = await steps.add('step', {});
    expect(await failed).toBe(`Job ${job.id} has pending dependencies. moveToFinished`);
    expect(await job.getState()).toBe('failed');
  });

  it("refuses a parent that does not exist, or has finished, with BullMQ's text", async () => {
    const name = queueName('parent-missing');
    const queue = closing(new Queue(name, { connection }));
    await expect(queue.add('orphan', {}, { parent: { id: 'nope', queue: `bull:${name}` } })).rejects.toThrow(`Missing key for parent job bull:${name}:nope. addJob`);
    const parent = await queue.add('parent', {});
    const finished = new Promise<void>((resolve) => {
      closing(new Worker(name, async () => 'ok', { connection })).on('completed', () => resolve());
    });
    await finished;
    await expect(queue.add('late', {}, { parent: { id: parent.id, queue: `bull:${name}` } })).rejects.toThrow(`The parent job bull:${name}:${parent.id} has already finished. addJob`);
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 0 });
  });
});

describe('job.removeChildDependency', () => {
  it('the last child leaving moves its parent to wait; getJob no longer shows the link', async () => {
    const name = queueName('detach');
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: name, children: [{ name: 'only', queueName: name }] });
    const child = tree.children?.[0]?.job;
    expect(await child?.removeChildDependency()).toBe(true);
    expect(child?.parentKey).toBeUndefined();
    expect(await tree.job.getState()).toBe('waiting');
    expect((await queue.getJob(child?.id ?? ''))?.parent).toBeUndefined();
    expect(await tree.job.getDependenciesCount()).toEqual({ processed: 0, unprocessed: 0, ignored: 0, failed: 0 });
  });

  it('with a sibling still open the parent keeps waiting; a removed child is refused with BullMQ\'s text', async () => {
    const name = queueName('detach-two');
    closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: name, children: [{ name: 'a', queueName: name }, { name: 'b', queueName: name }] });
    const [a, b] = (tree.children ?? []).map((node) => node.job);
    expect(await a?.removeChildDependency()).toBe(true);
    expect(await tree.job.getState()).toBe('waiting-children');
    expect(await tree.job.getDependenciesCount({ unprocessed: true })).toEqual({ unprocessed: 1 });
    await b?.remove();
    await expect(b?.removeChildDependency()).rejects.toThrow(`Missing key for job ${b?.id ?? ''}. removeChildDependency`);
  });
});

describe('the parent option with a jobId', () => {
  it('a missing parent is refused first; a new child with a jobId is refused, writing nothing', async () => {
    const name = queueName('parent-jobid');
    const queue = closing(new Queue(name, { connection }));
    await expect(queue.add('orphan', {}, { jobId: 'orphan-id', parent: { id: 'nope', queue: `bull:${name}` } })).rejects.toThrow(`Missing key for parent job bull:${name}:nope. addJob`);
    const parent = await queue.add('parent', {});
    await expect(queue.add('kid', {}, { jobId: 'kid-id', parent: { id: parent.id, queue: `bull:${name}` } })).rejects.toThrow('jobId with a parent option is not supported');
    expect(await queue.getJob('kid-id')).toBeUndefined();
  });

  it('a jobId naming a job already there answers that job, as a duplicate add does', async () => {
    const name = queueName('parent-dup');
    const queue = closing(new Queue(name, { connection }));
    const parent = await queue.add('parent', {});
    const plain = await queue.add('plain', { n: 1 }, { jobId: 'plain-id' });
    const again = await queue.add('plain', { n: 2 }, { jobId: 'plain-id', parent: { id: parent.id, queue: `bull:${name}` } });
    expect(again.id).toBe(plain.id);
    expect(again.data).toEqual({ n: 1 });
    expect(again.parent).toBeUndefined();
  });

  it('children added by addBulk under a plain job are counted by that job read before they were added', async () => {
    const parents = closing(new Queue(queueName('parent'), { connection }));
    const children = closing(new Queue(queueName('child'), { connection }));
    const parent = await parents.add('parent', {});
    const parentOption = { id: parent.id, queue: `bull:${parents.name}` };
    const added = await children.addBulk([{ name: 'a', data: 1, opts: { parent: parentOption } }, { name: 'b', data: 2, opts: { parent: parentOption } }]);
    expect(await parent.getDependenciesCount({ unprocessed: true })).toEqual({ unprocessed: 2 });
    expect((await parent.getDependencies()).unprocessed).toEqual(added.map((job) => `bull:${children.name}:${job.id}`));
  });

  it('FlowProducer.addBulk lands the flows it can: one under a missing parent is answered with a job that names nothing', async () => {
    const name = queueName('bulk');
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const [landed, refused] = await flow.addBulk([
      { name: 'fine', queueName: name, data: 1 },
      { name: 'orphan', queueName: name, data: 2, opts: { parent: { id: 'no-such-parent', queue: `bull:${name}` } } },
    ]);
    expect((await queue.getJob(landed?.job.id ?? ''))?.data).toBe(1);
    expect(refused?.job.name).toBe('orphan');
    expect(await queue.getJob(refused?.job.id ?? '')).toBeUndefined();
    expect(await queue.count()).toBe(1);
    await expect(flow.add({ name: 'orphan', queueName: name, opts: { parent: { id: 'no-such-parent', queue: `bull:${name}` } } })).rejects.toThrow(`Missing key for parent job bull:${name}:no-such-parent. addJob`);
  });
});

