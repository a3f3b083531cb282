import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker, type Job, type JobNode } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

/** A parent in its own queue over a leaf and a node with a leaf of its own, all children in `childName`. */
async function addTree(flow: FlowProducer, parentName: string, childName: string): Promise<JobNode> {
  return flow.add({ name: 'top', queueName: parentName, data: {}, children: [
    { name: 'leaf', queueName: childName, data: 1 },
    { name: 'mid', queueName: childName, data: 2, children: [{ name: 'low', queueName: childName, data: 3 }] },
  ] });
}

function nodes(tree: JobNode): Job[] {
  return [tree.job, ...(tree.children ?? []).flatMap(nodes)];
}

describe('removing flow jobs, as BullMQ does', () => {
  it('job.remove() takes a waiting parent with its children at every depth', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const children = closing(new Queue(childName, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await addTree(flow, parentName, childName);
    expect(await tree.job.getState()).toBe('waiting-children');

    await tree.job.remove();

    for (const job of nodes(tree)) expect(await job.getState()).toBe('unknown');
    expect(await children.getJobCountByTypes('waiting')).toBe(0);
  });

  it('removeChildren: false takes the parent alone; its children stay where they were', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const children = closing(new Queue(childName, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await addTree(flow, parentName, childName);

    await tree.job.remove({ removeChildren: false });

    expect(await tree.job.getState()).toBe('unknown');
    expect(await tree.children?.[0]?.job.getState()).toBe('waiting');
    expect(await tree.children?.[1]?.job.getState()).toBe('waiting-children');
    expect(await children.getJobCountByTypes('waiting')).toBe(2);
  });

  it('removes nothing while a worker holds a job of the tree', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: parentName, children: [{ name: 'a', queueName: childName }, { name: 'b', queueName: childName }] });
    const taker = closing(new Worker(childName, null, { connection }));
    expect(await taker.getNextJob('token-1')).toBeDefined();

    await expect(tree.job.remove()).rejects.toThrow(`Job ${tree.job.id} could not be removed because it is locked by another worker`);
    for (const job of nodes(tree)) expect(await job.getState()).not.toBe('unknown');
    expect(await tree.job.getState()).toBe('waiting-children');
  });

  it('a removed child stops counting for its parent in another queue, which runs after its last one goes', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: parentName, children: [{ name: 'a', queueName: childName }, { name: 'b', queueName: childName }] });
    const [first, second] = (tree.children ?? []).map((node) => node.job);

    await first?.remove();
    expect(await first?.getState()).toBe('unknown');
    expect(await tree.job.getState()).toBe('waiting-children');
    await second?.remove();
    expect(await tree.job.getState()).toBe('waiting');
  });

  it('queue.remove(id, { removeChildren }) reads the option the same way; unknown options are refused', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const parents = closing(new Queue(parentName, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await addTree(flow, parentName, childName);

    await expect(tree.job.remove({ removeChildren: false, cascade: true } as never)).rejects.toThrow(/cascade/);
    expect(await tree.job.getState()).toBe('waiting-children');
    expect(await parents.remove(tree.job.id, { removeChildren: true })).toBe(1);
    for (const job of nodes(tree)) expect(await job.getState()).toBe('unknown');
  });
});

describe('removeDependencyOnFailure', () => {
  it('a child that fails for good leaves its parent, which runs and lists it nowhere', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'top', queueName: parentName, children: [
      { name: 'fails', queueName: childName, data: 'x', opts: { removeDependencyOnFailure: true } },
      { name: 'works', queueName: childName, data: 'y' },
    ] });
    const seen = new Promise<unknown>((resolve, reject) => {
      closing(new Worker(parentName, async (job: Job) => {
        resolve({ dependencies: await job.getDependencies(), ignored: await job.getIgnoredChildrenFailures() });
      }, { connection })).on('error', reject);
    });
    closing(new Worker(childName, async (job: Job) => {
      if (job.data === 'x') throw new Error('no');
      return 'ok';
    }, { connection }));
    const worked = `bull:${childName}:${tree.children?.[1]?.job.id ?? ''}`;
    expect(await seen).toEqual({ dependencies: { processed: { [worked]: 'ok' }, unprocessed: [], ignored: {}, failed: [] }, ignored: {} });
  });

  it('a child with removeOnFail and no failure policy is forgotten too; its parent keeps the values of the others', async () => {
    const name = queueName('forget');
    const flow = closing(new FlowProducer({ connection }));
    await flow.add({ name: 'parent', queueName: name, children: [
      { name: 'fails', queueName: name, opts: { removeOnFail: true } },
      { name: 'works', queueName: name },
    ] });
    const counts = new Promise<unknown>((resolve) => {
      const worker = closing(new Worker(name, async (job: Job) => {
        if (job.name === 'fails') throw new Error('no');
        return job.name;
      }, { connection }));
      worker.on('completed', (job: Job) => {
        if (job.name === 'parent') void job.getDependenciesCount().then(resolve);
      });
    });
    expect(await counts).toEqual({ processed: 1, unprocessed: 0, ignored: 0, failed: 0 });
  });

  it('on a job added under an existing parent: its failure leaves the parent, which lists it nowhere', async () => {
    const name = queueName('late');
    const parents = closing(new Queue(queueName('parent'), { connection }));
    const queue = closing(new Queue(name, { connection }));
    const parent = await parents.add('parent', {});
    const parentOption = { id: parent.id, queue: `bull:${parents.name}` };
    await queue.add('fails', {}, { removeDependencyOnFailure: true, parent: parentOption });
    const kept = await queue.add('works', {}, { parent: parentOption });
    closing(new Worker(name, async (job: Job) => {
      if (job.name === 'fails') throw new Error('no');
      return job.name;
    }, { connection }));
    const settled = { processed: { [`bull:${name}:${kept.id}`]: 'works' }, unprocessed: [], ignored: {}, failed: [] };
    await expect.poll(() => parent.getDependencies(), { timeout: 5000 }).toEqual(settled);
  });

  it('is refused on a job added outside a flow, and with another failure policy', async () => {
    const name = queueName('lone');
    const queue = closing(new Queue(name, { connection }));
    await expect(queue.add('a', {}, { removeDependencyOnFailure: true })).rejects.toThrow(/removeDependencyOnFailure/);
    const flow = closing(new FlowProducer({ connection }));
    await expect(flow.add({ name: 'top', queueName: name, children: [{ name: 'c', queueName: name, opts: { removeDependencyOnFailure: true, failParentOnFailure: true } }] })).rejects.toThrow(
      'The following options cannot be used together: removeDependencyOnFailure, failParentOnFailure',
    );
  });

  it('removeUnprocessedChildren takes an open child away with its open children, leaving a running grandchild where it is', async () => {
    const parentName = queueName('parent');
    const childName = queueName('child');
    const flow = closing(new FlowProducer({ connection }));
    const tree = await addTree(flow, parentName, childName);
    const taker = closing(new Worker(childName, null, { connection }));
    const running = await taker.getNextJob('token-1');
    expect(running?.name).toBe('leaf');
    const mid = tree.children?.[1];
    const low = mid?.children?.[0]?.job;

    await tree.job.removeUnprocessedChildren();
    expect(await mid?.job.getState()).toBe('unknown');
    expect(await low?.getState()).toBe('unknown');
    expect(await tree.children?.[0]?.job.getState()).toBe('active');
    expect(await tree.job.getState()).toBe('waiting-children');
  });
});

