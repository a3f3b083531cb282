import { uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { GoneError, KindError } from '../src/errors/wire.js';
import { mintId } from '../src/ids/index.js';
import { Q, cmd, hgetall, type Claimed, useFlowConnection } from './flow-harness.js';

useFlowConnection();

describe('enqueue_flow', () => {
  it('47 flow_add: the parent is held with 2 dependencies outside every set; both children claim with token 1', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    const c2 = mintId('JOB');
    expect(await q.addFlow(pid, 'parent', [[c1, 'one', 'fp'], [c2, 'two', 'id']])).toBe(2);
    expect(await q.deps(pid)).toBe('2');
    expect(await q.row(pid)).toEqual({ state: 'awaiting_children', attempts: '0', payload: 'parent', flow: 'parent' });
    for (const set of [q.k.pending, q.k.active, q.k.schedule, q.k.dead]) expect(await q.inSet(set, pid)).toBe(false);
    expect(await q.row(c1)).toEqual({ state: 'pending', attempts: '0', payload: 'one', parent: pid, parent_policy: 'fp' });
    expect(await q.row(c2)).toEqual({ state: 'pending', attempts: '0', payload: 'two', parent: pid, parent_policy: 'id' });
    expect(await cmd('ZRANGE', q.k.pending, 0, -1)).toEqual([c1, c2]);
    const first = (await q.claim()) as Claimed;
    const second = (await q.claim()) as Claimed;
    expect([first[0], first[2], second[0], second[2]]).toEqual([c1, 1, c2, 1]);
    expect(await q.claim()).toEqual([]);
  });

  it('reports a duplicate parent with 0 and writes nothing', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    expect(await q.addFlow(pid, 'p', [[c1, 'c', 'fp']])).toBe(1);
    const c2 = mintId('JOB');
    expect(await q.addFlow(pid, 'other', [[c2, 'c', 'fp']])).toBe(0);
    expect((await q.row(pid)).payload).toBe('p');
    expect(await q.deps(pid)).toBe('1');
    expect(await cmd('EXISTS', q.k.job(c2))).toBe(0);
    expect(await cmd('ZCARD', q.k.pending)).toBe(1);
  });

  it('refuses a wrong-namespace id anywhere in the flow before any write', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    const bad = mintId('ORD');
    const error = await q.addFlow(pid, 'p', [[c1, 'c', 'fp'], [bad, 'c', 'fp']]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KindError);
    expect((error as KindError).message).toContain('job id must be JOB-namespaced');
    expect(await cmd('EXISTS', q.k.job(pid), q.k.jobSub(pid, 'dependencies'), q.k.job(c1), q.k.job(bad), q.k.pending)).toBe(0);
    const ordParent = mintId('ORD');
    expect(await q.addFlow(ordParent, 'p', [[c1, 'c', 'fp']]).catch((e: unknown) => e)).toBeInstanceOf(KindError);
    expect(await cmd('EXISTS', q.k.job(ordParent), q.k.job(c1))).toBe(0);
  });
});

describe('same-queue fan-in (complete sq)', () => {
  it('48 flow_fanin: the parent is released only by the last child, exactly once per child', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    const c2 = mintId('JOB');
    await q.addFlow(pid, 'parent', [[c1, 'one', 'fp'], [c2, 'two', 'fp']]);
    await q.claim();
    await q.claim();
    expect(await q.complete(c1, 1, { pid, result: c1 })).toBe(1);
    const again = await q.complete(c1, 99, { pid, result: c1 }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(GoneError);
    expect(await q.deps(pid)).toBe('1');
    expect(await q.claim()).toEqual([]);
    expect((await q.row(pid)).state).toBe('awaiting_children');
    expect(await q.complete(c2, 1, { pid, result: c2 })).toBe(1);
    expect(await q.deps(pid)).toBe('0');
    expect(await hgetall(q.sub(pid, 'processed'))).toEqual({ [c1]: c1, [c2]: c2 });
    expect((await q.row(pid)).state).toBe('pending');
    expect(await cmd('ZRANGE', q.k.pending, 0, -1)).toEqual([pid]);
    const parent = (await q.claim()) as Claimed;
    expect([parent[0], parent[1], parent[2]]).toEqual([pid, 'parent', 1]);
  });

  it('49 flow_children_values: results are recorded per child and dependencies count 2 -> 1 -> 0', async () => {
    const q = new Q(uniqueName('flows'));
    const pid = mintId('JOB');
    const c1 = mintId('JOB');
    const c2 = mintId('JOB');
    await q.addFlow(pid, 'p', [[c1, 'a', 'fp'], [c2, 'b', 'fp']]);
    expect(await q.deps(pid)).toBe('2');
    await q.claim();
    await q.claim();
    await q.complete(c1, 1, { pid, result: `r-${c1}` });
    expect(await q.deps(pid)).toBe('1');
    await q.complete(c2, 1, { pid, result: `r-${c2}` });
    expect(await q.deps(pid)).toBe('0');
    const values = { [c1]: `r-${c1}`, [c2]: `r-${c2}` };
    expect(await hgetall(q.sub(pid, 'processed'))).toEqual(values);
    expect(await hgetall(q.sub(pid, 'processed'))).toEqual(values);
    expect(await q.deps(pid)).toBe('0');
  });
});
