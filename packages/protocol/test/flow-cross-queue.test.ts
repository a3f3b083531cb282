import { uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { KindError } from '../src/errors/wire.js';
import { InvalidArgumentError } from '../src/errors/validation.js';
import { mintId } from '../src/ids/index.js';
import * as t from '../src/transitions/index.js';
import { Q, raw, sweep, twoSlots, cmd, hgetall, type Claimed, useFlowConnection } from './flow-harness.js';

useFlowConnection();

describe('cross-queue flows', () => {
  it('50 flow_cross_queue: the child`s outbox carries the completion; one sweep releases the parent; a duplicate does not decrement', async () => {
    const [parentQ, childQ] = twoSlots('flowp');
    const pid = mintId('JOB');
    const cid = mintId('JOB');
    expect(await parentQ.hold(pid, 'parent', 1)).toBe(1);
    expect(await parentQ.row(pid)).toEqual({ state: 'awaiting_children', attempts: '0', payload: 'parent', flow: 'parent' });
    expect(await childQ.addChild(cid, 'child', pid, parentQ.k.queue, 'fp')).toBe(1);
    expect(await childQ.row(cid)).toEqual({
      state: 'pending',
      attempts: '0',
      payload: 'child',
      parent: pid,
      parent_policy: 'fp',
      parent_queue: parentQ.k.queue,
    });
    const [claimed, , token] = (await childQ.claim()) as Claimed;
    expect(claimed).toBe(cid);
    expect(await childQ.complete(cid, token, { pid, result: 'the-result', parent: parentQ })).toBe(1);
    expect(await cmd('LLEN', childQ.k.flowOutbox)).toBe(1);
    expect(await parentQ.deps(pid)).toBe('1');
    expect(await parentQ.claim()).toEqual([]);

    expect(await sweep(childQ, { [parentQ.k.queue]: parentQ })).toBe(1);
    expect(await cmd('LLEN', childQ.k.flowOutbox)).toBe(0);
    expect(await parentQ.deps(pid)).toBe('0');
    expect((await parentQ.row(pid)).state).toBe('pending');
    expect(await hgetall(parentQ.sub(pid, 'processed'))).toEqual({ [cid]: 'the-result' });

    await cmd('RPUSH', childQ.k.flowOutbox, [parentQ.k.queue, pid, cid, 'the-result'].join('\0'));
    expect(await sweep(childQ, { [parentQ.k.queue]: parentQ })).toBe(1);
    expect(await cmd('LLEN', childQ.k.flowOutbox)).toBe(0);
    expect(await parentQ.deps(pid)).toBe('0');
    expect(await cmd('ZCARD', parentQ.k.pending)).toBe(1);
    const parent = (await parentQ.claim()) as Claimed;
    expect([parent[0], parent[1], parent[2]]).toEqual([pid, 'parent', 1]);
  });

  it('flow_deliver answers 0 for a duplicate and for a parent that is gone, writing nothing', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    expect(await q.hold(pid, 'p', 2)).toBe(1);
    expect(await q.deliver(c1, 'r', pid)).toBe(1);
    expect(await q.deliver(c1, 'other', pid)).toBe(0);
    expect(await q.deps(pid)).toBe('1');
    expect(await hgetall(q.sub(pid, 'processed'))).toEqual({ [c1]: 'r' });
    const ghost = mintId('JOB');
    expect(await q.deliver(c1, 'r', ghost)).toBe(0);
    expect(await cmd('EXISTS', q.sub(ghost, 'dependencies'), q.sub(ghost, 'processed'), q.k.job(ghost))).toBe(0);
  });

  it('hold_parent links a nested node; enqueue_flow_child omits parent_queue for a same-queue parent', async () => {
    const q = new Q(uniqueName('flows'));
    const root = mintId('JOB');
    const node = mintId('JOB');
    const leaf = mintId('JOB');
    expect(await q.hold(root, 'root', 1)).toBe(1);
    expect(await q.hold(node, 'node', 1, [root, 'elsewhere', 'id'])).toBe(1);
    expect(await q.row(node)).toEqual({
      state: 'awaiting_children',
      attempts: '0',
      payload: 'node',
      flow: 'parent',
      parent: root,
      parent_queue: 'elsewhere',
      parent_policy: 'id',
    });
    expect(await q.hold(node, 'again', 5)).toBe(0);
    expect(await q.deps(node)).toBe('1');
    expect(await q.addChild(leaf, 'leaf', node, '', 'fp')).toBe(1);
    expect(await q.row(leaf)).toEqual({ state: 'pending', attempts: '0', payload: 'leaf', parent: node, parent_policy: 'fp' });
    expect(await q.addChild(leaf, 'again', node, '', 'fp')).toBe(0);
    expect((await q.row(leaf)).payload).toBe('leaf');
    // A grandchild's completion releases the node, whose completion releases the root.
    const [, , t1] = (await q.claim()) as Claimed;
    await q.complete(leaf, t1, { pid: node, result: 'x' });
    expect((await q.row(node)).state).toBe('pending');
    const [n, , t2] = (await q.claim()) as Claimed;
    expect([n, t2]).toEqual([node, 1]);
    await q.complete(node, t2, { pid: root, result: 'y' });
    expect((await q.row(root)).state).toBe('pending');
  });

  it('hold_parent and enqueue_flow_child refuse a wrong-namespace id and write nothing', async () => {
    const q = new Q(uniqueName('flows'));
    const ord = mintId('ORD');
    const pid = mintId('JOB');
    expect(await q.hold(ord, 'p', 1).catch((e: unknown) => e)).toBeInstanceOf(KindError);
    expect(await q.hold(pid, 'p', 1, [ord, '', 'fp']).catch((e: unknown) => e)).toBeInstanceOf(KindError);
    expect(await q.addChild(ord, 'c', pid, '', 'fp').catch((e: unknown) => e)).toBeInstanceOf(KindError);
    const cid = mintId('JOB');
    expect(await q.addChild(cid, 'c', ord, '', 'fp').catch((e: unknown) => e)).toBeInstanceOf(KindError);
    expect(await cmd('EXISTS', q.k.job(ord), q.k.job(pid), q.k.job(cid), q.k.jobSub(pid, 'dependencies'), q.k.pending)).toBe(0);
  });

  it('[TS] flow nodes carry job options: a held parent keeps its priority for its release; a delayed leaf waits in the schedule', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const soon = mintId('JOB');
    const later = mintId('JOB');
    expect(await raw(t.holdParent({ queue: q.k.queue, id: pid, payload: 'p', children: 2, options: { priority: 7 } }))).toBe(1);
    expect(await q.row(pid)).toEqual({ state: 'awaiting_children', attempts: '0', payload: 'p', flow: 'parent', priority: '7' });
    const link = { id: pid, queue: '', policy: 'fp' } as const;
    expect(await raw(t.enqueueFlowChild({ queue: q.k.queue, id: soon, payload: 's', parent: link, options: { priority: 3 } }))).toBe(1);
    expect(await cmd('ZSCORE', q.k.pending, soon)).toBe('-3');
    const before = Number(await cmd('TIME').then((time) => (time as string[])[0])) * 1000;
    expect(await raw(t.enqueueFlowChild({ queue: q.k.queue, id: later, payload: 'l', parent: link, options: { priority: 2 }, delayMs: 60_000 }))).toBe(1);
    expect(await q.row(later)).toEqual({ state: 'scheduled', attempts: '0', payload: 'l', priority: '2', parent: pid, parent_policy: 'fp' });
    expect(await q.inSet(q.k.pending, later)).toBe(false);
    expect(Number(await cmd('ZSCORE', q.k.schedule, later))).toBeGreaterThanOrEqual(before + 60_000);
    // A bad delay is refused before the wire: nothing written.
    const bad = mintId('JOB');
    expect(() => t.enqueueFlowChild({ queue: q.k.queue, id: bad, payload: 'b', parent: link, delayMs: -1 })).toThrow(InvalidArgumentError);
    expect(await cmd('EXISTS', q.k.job(bad))).toBe(0);
    // Both children settle (the delayed one as if promoted): the parent enters pending at -priority.
    const [first, , t1] = (await q.claim()) as Claimed;
    expect(first).toBe(soon);
    await q.complete(soon, t1, { pid, result: 'a' });
    expect((await q.row(pid)).state).toBe('awaiting_children');
    expect(await q.deliver(later, 'b', pid)).toBe(1);
    expect(await cmd('ZSCORE', q.k.pending, pid)).toBe('-7');
  });
});
