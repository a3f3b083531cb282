import { InvalidArgumentError, StateError } from '@echo/protocol/queue';
import { waitFor } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Worker, type Queue } from '../src/index.js';
import { queuesPerFile } from './queues-per-file.js';

const queues = queuesPerFile('tree');

const fast = { maintenanceMs: 20, blockMs: 50, maxAttempts: 1 } as const;

function open(): Promise<Queue<string>> {
  return queues.open<string>();
}

describe('removing a parent still waiting on its children', () => {
  it('is refused without held, and goes with held; its children then report to no one', async () => {
    const q = await open();
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'a' }] });
    await expect(q.remove(flow.id)).rejects.toBeInstanceOf(StateError);
    await expect(q.remove(flow.id, { held: 'yes' } as never)).rejects.toBeInstanceOf(InvalidArgumentError);
    await q.remove(flow.id, { held: true });
    expect(await q.getState(flow.id)).toBe('absent');
    expect(await q.counts('awaiting_children')).toEqual({ awaiting_children: 0 });
    const worker = await Worker.start(q, (job) => Promise.resolve(`r-${job.payload}`), fast);
    await waitFor(async () => (await q.getState(flow.children[0]!.id)) === 'absent', { timeoutMs: 15_000 });
    await worker.close();
  });
});

describe('forgetChildren: a parent stops waiting for children removed in another queue', () => {
  it('counts down and releases the parent at zero; a finished or missing parent is refused', async () => {
    const [q1, q2] = await Promise.all([open(), open()]);
    const flow = await q1.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'a', queue: q2.name }, { payload: 'b', queue: q2.name }] });
    await q2.remove(flow.children[0]!.id);
    expect(await q1.forgetChildren(flow.id, 1)).toBe(1);
    expect(await q1.getState(flow.id)).toBe('awaiting_children');
    await q2.remove(flow.children[1]!.id);
    expect(await q1.forgetChildren(flow.id, 1)).toBe(0);
    expect(await q1.getState(flow.id)).toBe('pending');
    await expect(q1.forgetChildren(flow.id, 0)).rejects.toBeInstanceOf(InvalidArgumentError);
    await q1.remove(flow.id);
    await expect(q1.forgetChildren(flow.id, 1)).rejects.toBeInstanceOf(StateError);
  });
});

describe('flow nodes with a business key', () => {
  it('getJobByKey finds each keyed node; a key that names a job refuses the flow before anything lands', async () => {
    const [q1, q2] = await Promise.all([open(), open()]);
    const flow = await q1.addFlow({ parent: { payload: 'parent', key: 'order-1' }, children: [{ payload: 'a', queue: q2.name, key: 'pick-1' }] });
    expect((await q1.getJobByKey('order-1'))?.id).toBe(flow.id);
    expect((await q2.getJobByKey('pick-1'))?.id).toBe(flow.children[0]!.id);
    await expect(q1.addFlow({ parent: { payload: 'again' }, children: [{ payload: 'b', queue: q2.name, key: 'pick-1' }] })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await q1.counts('awaiting_children')).toEqual({ awaiting_children: 1 });
    await expect(q1.addFlow({ parent: { payload: 'p', key: 'no spaces' }, children: [{ payload: 'c' }] })).rejects.toThrow();
  });
});
