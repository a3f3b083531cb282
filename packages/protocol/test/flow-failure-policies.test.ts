import { uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { mintId } from '../src/ids/index.js';
import { Q, sweep, twoSlots, cmd, hgetall, type Claimed, useFlowConnection } from './flow-harness.js';

useFlowConnection();

describe('failure policies', () => {
  it('51 flow_fail_parent (same queue): the dying fp child kills its parent in the same step', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    const c2 = mintId('JOB');
    await q.addFlow(pid, 'p', [[c1, 'a', 'fp'], [c2, 'b', 'fp']]);
    const [, , token] = (await q.claim()) as Claimed;
    expect(await q.kill(c1, token, 'boom', 'sq:fp', pid)).toBe('dead');
    expect((await q.row(pid)).state).toBe('dead');
    expect(await q.inSet(q.k.dead, pid)).toBe(true);
    expect(await q.inSet(q.k.dead, c1)).toBe(true);
    expect(await hgetall(q.sub(pid, 'failed'))).toEqual({ [c1]: 'boom' });
    // The sibling's later completion cannot bring a dead parent back.
    const [, , t2] = (await q.claim()) as Claimed;
    await q.complete(c2, t2, { pid, result: c2 });
    expect((await q.row(pid)).state).toBe('dead');
    expect(await q.inSet(q.k.pending, pid)).toBe(false);
  });

  it('51 flow_fail_parent (cross queue): the parent stays held until a sweep, then dies once', async () => {
    const [parentQ, childQ] = twoSlots('flowf');
    const pid = mintId('JOB');
    const cid = mintId('JOB');
    await parentQ.hold(pid, 'p', 1);
    await childQ.addChild(cid, 'c', pid, parentQ.k.queue, 'fp');
    const [, , token] = (await childQ.claim()) as Claimed;
    expect(await childQ.kill(cid, token, 'bad\0bytes', 'xq:fp', pid, parentQ)).toBe('dead');
    expect(await childQ.inSet(childQ.k.dead, cid)).toBe(true);
    expect(await cmd('LLEN', childQ.k.flowOutbox)).toBe(1);
    expect((await parentQ.row(pid)).state).toBe('awaiting_children');
    expect(await parentQ.inSet(parentQ.k.dead, pid)).toBe(false);

    const entry = (await cmd<string[]>('LRANGE', childQ.k.flowOutbox, 0, -1))[0] as string;
    expect(await sweep(childQ, { [parentQ.k.queue]: parentQ })).toBe(1);
    expect((await parentQ.row(pid)).state).toBe('dead');
    expect(await parentQ.inSet(parentQ.k.dead, pid)).toBe(true);
    expect(await hgetall(parentQ.sub(pid, 'failed'))).toEqual({ [cid]: 'bad\0bytes' });

    await cmd('RPUSH', childQ.k.flowOutbox, entry);
    expect(await sweep(childQ, { [parentQ.k.queue]: parentQ })).toBe(1);
    expect(await parentQ.failDeliver(cid, 'bad\0bytes', 'fp', pid)).toBe(0);
    expect(await cmd('ZCARD', parentQ.k.dead)).toBe(1);
    expect(await cmd('HLEN', parentQ.sub(pid, 'failed'))).toBe(1);
    expect(await parentQ.deps(pid)).toBe('1');
  });

  it('52 flow_ignore_dep: an id child`s death counts down and is recorded apart; the sibling releases the parent', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    const c2 = mintId('JOB');
    await q.addFlow(pid, 'p', [[c1, 'a', 'id'], [c2, 'b', 'fp']]);
    const [, , t1] = (await q.claim()) as Claimed;
    expect(await q.kill(c1, t1, 'meh', 'sq:id', pid)).toBe('dead');
    expect(await q.deps(pid)).toBe('1');
    expect((await q.row(pid)).state).toBe('awaiting_children');
    const [, , t2] = (await q.claim()) as Claimed;
    await q.complete(c2, t2, { pid, result: c2 });
    expect((await q.row(pid)).state).toBe('pending');
    expect(await hgetall(q.sub(pid, 'unsuccessful'))).toEqual({ [c1]: 'meh' });
    expect(await hgetall(q.sub(pid, 'processed'))).toEqual({ [c2]: c2 });
    expect(await hgetall(q.sub(mintId('JOB'), 'unsuccessful'))).toEqual({});
  });

  it('flow_fail_deliver id: counts down once, releases at zero, never revives a dead parent', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    const c2 = mintId('JOB');
    await q.hold(pid, 'p', 2);
    expect(await q.failDeliver(c1, 'e1', 'id', pid)).toBe(1);
    expect(await q.failDeliver(c1, 'e1', 'id', pid)).toBe(0);
    expect(await q.deps(pid)).toBe('1');
    expect(await q.deliver(c2, 'ok', pid)).toBe(1);
    expect(await q.deps(pid)).toBe('0');
    expect((await q.row(pid)).state).toBe('pending');
    expect(await hgetall(q.sub(pid, 'unsuccessful'))).toEqual({ [c1]: 'e1' });

    const dead = mintId('JOB');
    await q.hold(dead, 'p', 2);
    expect(await q.failDeliver(c1, 'x', 'fp', dead)).toBe(2);
    expect(await q.failDeliver(c2, 'y', 'id', dead)).toBe(1);
    expect(await q.deliver(mintId('JOB'), 'z', dead)).toBe(1);
    expect((await q.row(dead)).state).toBe('dead');
    expect(await q.inSet(q.k.pending, dead)).toBe(false);
    // An unknown policy reads as fp; a parent that is gone takes nothing.
    const other = mintId('JOB');
    await q.hold(other, 'p', 1);
    expect(await q.failDeliver(c1, 'x', 'weird', other)).toBe(2);
    const ghost = mintId('JOB');
    expect(await q.failDeliver(c1, 'x', 'fp', ghost)).toBe(0);
    expect(await cmd('EXISTS', q.k.job(ghost), q.sub(ghost, 'failed'))).toBe(0);
    expect(await q.inSet(q.k.dead, ghost)).toBe(false);
  });
});
