import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { GoneError, KindError } from '../src/errors/wire.js';
import { mintId, type BrandedId, type JobId } from '../src/ids/index.js';
import { queueKeys, slot, type QueueKeys } from '../src/keys/index.js';
import * as t from '../src/transitions/index.js';
import { parseOutboxEntry } from '../src/formats/outbox-entry.js';

type Policy = 'fp' | 'id';
type Claimed = [string, string, number, ...unknown[]];

let conn: Connection;

beforeAll(async () => {
  const server = await useRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
  expect(conn.strictKeys).toBe(true);
});

afterAll(async () => {
  await conn.close();
});

/** Sends a typed transition and answers its raw reply, which these tests read literally. */
function raw(tr: { script: Parameters<Connection['run']>[0]; keys: readonly string[]; args: Parameters<Connection['run']>[2] }): Promise<unknown> {
  return conn.run(tr.script, tr.keys, tr.args);
}

function cmd<T = unknown>(name: string, ...args: (string | number)[]): Promise<T> {
  return conn.command(name, ...args) as Promise<T>;
}

async function hgetall(key: string): Promise<Record<string, string>> {
  const flat = await cmd<string[]>('HGETALL', key);
  const out: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
  return out;
}

/** The flow verbs of one queue, each a single script call in the catalog's key order. */
class Q {
  readonly k: QueueKeys;

  constructor(name: string) {
    this.k = queueKeys(name);
  }

  row(id: string): Promise<Record<string, string>> {
    return hgetall(this.k.job(id as BrandedId));
  }

  sub(id: string, s: 'dependencies' | 'processed' | 'failed' | 'unsuccessful'): string {
    return this.k.jobSub(id as BrandedId, s);
  }

  addFlow(pid: BrandedId, payload: string, children: readonly [BrandedId, string, Policy][]): Promise<unknown> {
    return raw(t.enqueueFlow({ queue: this.k.queue, parent: { id: pid, payload }, children: children.map(([id, p, policy]) => ({ id, payload: p, policy })) }));
  }

  hold(pid: BrandedId, payload: string, n: number, link: [string, string, string] = ['', '', '']): Promise<unknown> {
    const [id, queue, policy] = link;
    return raw(t.holdParent({ queue: this.k.queue, id: pid, payload, children: n, link: id === '' ? undefined : { id, queue, policy: policy as Policy } }));
  }

  addChild(cid: BrandedId, payload: string, pid: string, pqueue: string, policy: Policy): Promise<unknown> {
    return raw(t.enqueueFlowChild({ queue: this.k.queue, id: cid, payload, parent: { id: pid, queue: pqueue, policy } }));
  }

  async claim(): Promise<Claimed | []> {
    return (await raw(t.claim({ queue: this.k.queue, leaseMs: 30_000 }))) as Claimed | [];
  }

  /** complete in mode sq (parent in this queue), xq (parent in `parentQueue`) or plain. */
  complete(id: string, token: number, link?: { pid: string; result: string; parent?: Q }): Promise<unknown> {
    const parent = link ? { id: link.pid as JobId, queue: (link.parent ?? this).k.queue, policy: 'fp' as const } : undefined;
    return raw(t.complete({ queue: this.k.queue, job: { id, attempts: token, parent }, ...(link ? { result: link.result } : {}) }));
  }

  /** retry at the cap (max 1), so the child dies and its flow failure arm runs. */
  kill(id: string, token: number, error: string, mode: string, pid: string, parent?: Q): Promise<unknown> {
    const policy = mode.endsWith(':id') ? 'id' : 'fp';
    const link = { id: pid as JobId, queue: (parent ?? this).k.queue, policy } as const;
    return raw(t.retry({ queue: this.k.queue, job: { id, attempts: token, parent: link }, delayMs: 0, maxAttempts: 1, error }));
  }

  deliver(cid: string, result: string, pid: string): Promise<unknown> {
    return raw(t.flowDeliver({ parentQueue: this.k.queue, parentId: pid, childId: cid, result }));
  }

  failDeliver(cid: string, error: string, policy: string, pid: string): Promise<unknown> {
    return raw(t.flowFailDeliver({ parentQueue: this.k.queue, parentId: pid, childId: cid, error, policy: policy as Policy }));
  }

  deps(pid: string): Promise<string | null> {
    return cmd('GET', this.sub(pid, 'dependencies'));
  }

  inSet(set: string, id: string): Promise<boolean> {
    return cmd('ZSCORE', set, id).then((s) => s !== null);
  }
}

/**
 * The pump's sweep, by hand (queue.md §11.5): read the child queue's outbox, deliver each entry on
 * the parent's slot, stop at the first error, trim what was delivered. Returns the delivered count.
 */
async function sweep(child: Q, parents: Record<string, Q>): Promise<number> {
  const entries = await cmd<string[]>('LRANGE', child.k.flowOutbox, 0, 99);
  let delivered = 0;
  for (const text of entries) {
    // The protocol's one reader of what complete, retry, sweep_stalled and flow_reemit write.
    const entry = parseOutboxEntry(text);
    if (entry === undefined) break;
    const parent = parents[entry.parentQueue] as Q;
    try {
      if (entry.kind === 'fail') await parent.failDeliver(entry.childId, entry.error, entry.policy, entry.parentId);
      else await parent.deliver(entry.childId, entry.result, entry.parentId);
    } catch {
      break;
    }
    delivered++;
  }
  await cmd('LTRIM', child.k.flowOutbox, delivered, -1);
  return delivered;
}

/** Two queue names whose hashtags land on different slots, so the flow really crosses slots. */
function twoSlots(prefix: string): [Q, Q] {
  for (;;) {
    const a = new Q(uniqueName(prefix));
    const b = new Q(uniqueName(`${prefix}x`));
    if (slot(a.k.pending) !== slot(b.k.pending)) return [a, b];
  }
}

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
});

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
