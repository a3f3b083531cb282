import { GoneError, InvalidArgumentError, StateError } from '@echo/protocol/queue';
import { waitFor } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Worker, type Queue } from '../src/index.js';
import { queuesPerFile } from './queues-per-file.js';

const queues = queuesPerFile('adopt');

const fast = { maintenanceMs: 20, blockMs: 50, maxAttempts: 1 } as const;

function open(): Promise<Queue<string>> {
  return queues.open<string>();
}

describe('addChildren: children join a parent that already exists', () => {
  it('a held parent waits for the new child too, and runs with its result', async () => {
    const q = await open();
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'a' }] });
    const [late] = await q.addChildren(flow.id, [{ payload: 'late' }]);
    expect(await q.dependencies(flow.id)).toBe(2);
    expect(await q.getJob(late!.id)).toMatchObject({ state: 'pending', parent: { id: flow.id } });
    let values: Record<string, string> = {};
    const worker = await Worker.start(q, async (job) => {
      if (job.payload === 'parent') values = await q.childrenValues(job.id);
      return `r-${job.payload}`;
    }, fast);
    await waitFor(async () => (await q.getState(flow.id)) === 'absent', { timeoutMs: 15_000 });
    await worker.close();
    expect(values).toEqual({ [flow.children[0]!.id]: 'r-a', [late!.id]: 'r-late' });
  });

  it('a child in another queue, with children of its own, counts in before it lands', async () => {
    const [q1, q2] = await Promise.all([open(), open()]);
    const parent = await q1.enqueue('parent');
    const [node] = await q1.addChildren(parent.id, [{ payload: 'node', queue: q2.name, children: [{ payload: 'leaf', queue: q2.name }] }]);
    expect(await q1.dependencies(parent.id)).toBe(1);
    expect(await q2.getState(node!.id)).toBe('awaiting_children');
    // The parent was pending and stays so: a job that did not ask to wait for its children runs.
    expect(await q1.getState(parent.id)).toBe('pending');
  });

  it('refuses a parent that does not exist or has finished, writing nothing', async () => {
    const q = await open();
    await q.setRetention({ completed: { count: 10 } });
    const done = await q.enqueue('done');
    const worker = await Worker.start(q, () => 'ok', fast);
    await waitFor(async () => (await q.getState(done.id)) === 'completed', { timeoutMs: 15_000 });
    await worker.close();
    await expect(q.addChildren(done.id, [{ payload: 'x' }])).rejects.toThrow(StateError);
    await expect(q.addChildren(done.id, [{ payload: 'x' }])).rejects.toThrow('parent finished');
    const gone = await q.enqueue('gone');
    await q.remove(gone.id);
    await expect(q.addChildren(gone.id, [{ payload: 'x' }])).rejects.toThrow('parent missing');
    expect((await q.counts()).pending).toBe(0);
  });

  it('refuses a same-queue child id already in use, adding nothing', async () => {
    const q = await open();
    const parent = await q.enqueue('parent');
    const taken = await q.enqueue('taken');
    await expect(q.addChildren(parent.id, [{ payload: 'x', id: taken.id }])).rejects.toThrow(InvalidArgumentError);
    expect(await q.dependencies(parent.id)).toBe(0);
  });
});

describe('detachChild: a child leaves its parent', () => {
  it('the last open child leaving releases the parent; the child runs on alone', async () => {
    const q = await open();
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'a' }] });
    const child = flow.children[0]!.id;
    expect(await q.detachChild(child)).toBe(true);
    expect(await q.getState(flow.id)).toBe('pending');
    expect((await q.getJob(child))?.parent).toBeUndefined();
    let values: Record<string, string> | undefined;
    const worker = await Worker.start(q, async (job) => {
      if (job.payload === 'parent') values = await q.childrenValues(job.id);
      return 'ok';
    }, fast);
    await waitFor(async () => (await q.getState(child)) === 'absent' && values !== undefined, { timeoutMs: 15_000 });
    await worker.close();
    expect(values).toEqual({});
  });

  it('with other children open the parent keeps waiting; a second call answers false', async () => {
    const q = await open();
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'a' }, { payload: 'b' }] });
    expect(await q.detachChild(flow.children[0]!.id)).toBe(true);
    expect(await q.getState(flow.id)).toBe('awaiting_children');
    expect(await q.dependencies(flow.id)).toBe(1);
    expect(await q.detachChild(flow.children[0]!.id)).toBe(false);
    expect(await q.dependencies(flow.id)).toBe(1);
  });

  it('refuses a job that does not exist', async () => {
    const q = await open();
    const job = await q.enqueue('x');
    await q.remove(job.id);
    await expect(q.detachChild(job.id)).rejects.toThrow(GoneError);
  });

  it('refuses a child whose parent is in another queue, changing nothing', async () => {
    const [q1, q2] = await Promise.all([open(), open()]);
    const flow = await q1.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'a', queue: q2.name }] });
    await expect(q2.detachChild(flow.children[0]!.id)).rejects.toThrow('parent in another queue');
    expect((await q2.getJob(flow.children[0]!.id))?.parent?.id).toBe(flow.id);
  });
});

describe('a closing worker delivers its flow signals', () => {
  it('a child completed releases its parent in another queue at once, with no tick, and before close', async () => {
    const [parents, children] = await Promise.all([open(), open()]);
    const flow = await parents.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child', queue: children.name }] });
    // A maintenance period far longer than the test: no tick delivers the signal; the settlement does.
    const worker = await Worker.start(children, () => 'done', { ...fast, maintenanceMs: 600_000 });
    await waitFor(async () => (await parents.getState(flow.id)) === 'pending', { timeoutMs: 15_000 });
    await worker.close();
    expect(await parents.getState(flow.id)).toBe('pending');
    expect(await parents.childrenValues(flow.id)).toEqual({ [flow.children[0]!.id]: 'done' });
  });
});
