/**
 * G. Flows, scenarios 47–51, through the queue's flow verbs: `addFlow`, the claim and settlement
 * verbs (a claimed child carries its parent link), and `deliverOutbox`, the sweep a worker's pump
 * runs, called here by hand so each hop can be observed.
 */
import assert from 'node:assert/strict';
import { GoneError, slot, type JobId } from '@echo/protocol/extend';
import type { ClaimedJob, Queue } from '@echo/queue';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import { assertError, count, hgetall, lrange, present, rejection, zrange, zscore } from '../support.js';

/** Opens `.suffix` (or `.suffix2`, …) on a slot other than every queue in `avoid`, so a flow really crosses slots. */
export async function otherSlot(env: ScenarioEnv, avoid: readonly Queue[], suffix: string): Promise<Queue> {
  const taken = new Set(avoid.map((q) => slot(q.keys.pending)));
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? suffix : `${suffix}${n}`;
    if (!taken.has(slot(`{${env.name(candidate)}}`))) return env.queue(candidate);
  }
}

/** The raw `:dependencies` counter, as the wire holds it. */
export async function deps(env: ScenarioEnv, q: Queue, pid: JobId): Promise<unknown> {
  return env.command('GET', q.keys.jobSub(pid, 'dependencies'));
}

/** The parent's `:failed` hash: each fail-parent child that killed it. */
export function failedChildren(env: ScenarioEnv, q: Queue, pid: JobId): Promise<Record<string, string>> {
  return hgetall(env, q.keys.jobSub(pid, 'failed'));
}

export function outbox(env: ScenarioEnv, q: Queue): Promise<string[]> {
  return lrange(env, q.keys.flowOutbox);
}

export async function inSet(env: ScenarioEnv, q: Queue, set: 'pending' | 'active' | 'schedule' | 'dead', id: string): Promise<boolean> {
  return (await zscore(env, q.keys[set], id)) !== null;
}

/** Claims the next job of `q`, which must be `id` with token 1. */
export async function claimed(q: Queue, id: string, what: string): Promise<ClaimedJob<unknown>> {
  const job = present(await q.leases().claim(30_000), what);
  assert.deepEqual([job.id, job.attempts], [id, 1], what);
  return job;
}

/** Delivers `q`'s outbox, which must deliver exactly `n` signals. */
export async function sweep(q: Queue, n: number): Promise<void> {
  const done = await q.maintenance().deliverOutbox();
  assert.deepEqual([done.delivered, done.poisoned], [n, false], `the sweep of ${q.name}`);
}

const ids = (env: ScenarioEnv, n: number): JobId[] => Array.from({ length: n }, () => env.mintId('JOB'));

export const flows: Scenario[] = [
  {
    no: 47,
    name: 'flow_add',
    family: 'flows',
    contract: 'a same-queue flow of a parent and 2 children lands in one step: dependencies "2", parent awaiting_children and not pending; both children claim with token 1',
    async run(env) {
      const q = await env.queue();
      const [c1, c2] = ids(env, 2) as [JobId, JobId];
      const flow = await q.addFlow({
        parent: { payload: 'parent' },
        children: [
          { id: c1, payload: 'one' },
          { id: c2, payload: 'two', ignoreDependencyOnFailure: true },
        ],
      });
      const pid = flow.id;
      assert.deepEqual(
        flow.children.map((c) => c.id),
        [c1, c2],
      );
      assert.equal(await deps(env, q, pid), '2');
      assert.equal(await q.dependencies(pid), 2);
      assert.equal(await q.getState(pid), 'awaiting_children');
      for (const set of ['pending', 'active', 'schedule', 'dead'] as const) assert.equal(await inSet(env, q, set, pid), false, `the parent is not in ${set}`);
      const first = await claimed(q, c1, 'the first child');
      const second = await claimed(q, c2, 'the second child');
      assert.deepEqual([first.parent?.id, first.parent?.policy, second.parent?.policy], [pid, 'fp', 'id']);
      assert.equal(await q.leases().claim(30_000), undefined);
    },
  },
  {
    no: 48,
    name: 'flow_fanin',
    family: 'flows',
    contract: 'after one child completes, a wrong-token complete gives gone and dependencies is "1", the parent unclaimable; after the second: "0", processed holds both, parent pending, claimed with token 1',
    async run(env) {
      const q = await env.queue();
      const [c1, c2] = ids(env, 2) as [JobId, JobId];
      const { id: pid } = await q.addFlow({
        parent: { payload: 'parent' },
        children: [
          { id: c1, payload: 'one' },
          { id: c2, payload: 'two' },
        ],
      });
      const j1 = await claimed(q, c1, 'child 1');
      const j2 = await claimed(q, c2, 'child 2');
      await q.leases().complete(j1);
      assertError(await rejection(q.leases().complete({ id: c1, attempts: 99, parent: j1.parent })), GoneError);
      assert.equal(await deps(env, q, pid), '1');
      assert.equal(await q.leases().claim(30_000), undefined);
      assert.equal(await q.getState(pid), 'awaiting_children');
      await q.leases().complete(j2);
      assert.equal(await deps(env, q, pid), '0');
      assert.deepEqual(await hgetall(env, q.keys.jobSub(pid, 'processed')), { [c1]: c1, [c2]: c2 });
      assert.equal(await q.getState(pid), 'pending');
      assert.deepEqual(await zrange(env, q.keys.pending), [pid]);
      const parent = await claimed(q, pid, 'the released parent');
      assert.equal(parent.payload, 'parent');
    },
  },
  {
    no: 49,
    name: 'flow_children_values',
    family: 'flows',
    contract: 'two children complete with results r-<id>: childrenValues is exactly {c1: r-c1, c2: r-c2}, dependencies count 2 -> 1 -> 0, repeated reads change nothing',
    async run(env) {
      const q = await env.queue();
      const [c1, c2] = ids(env, 2) as [JobId, JobId];
      const { id: pid } = await q.addFlow({
        parent: { payload: 'p' },
        children: [
          { id: c1, payload: 'a' },
          { id: c2, payload: 'b' },
        ],
      });
      assert.equal(await q.dependencies(pid), 2);
      const j1 = await claimed(q, c1, 'child 1');
      const j2 = await claimed(q, c2, 'child 2');
      await q.leases().complete(j1, `r-${c1}`);
      assert.equal(await q.dependencies(pid), 1);
      await q.leases().complete(j2, `r-${c2}`);
      assert.equal(await q.dependencies(pid), 0);
      const values = { [c1]: `r-${c1}`, [c2]: `r-${c2}` };
      assert.deepEqual({ ...(await q.childrenValues(pid)) }, values);
      assert.deepEqual({ ...(await q.childrenValues(pid)) }, values);
      assert.equal(await q.dependencies(pid), 0);
    },
  },
  {
    no: 50,
    name: 'flow_cross_queue',
    family: 'flows',
    contract: "a child on another slot completes into its queue's outbox (1 entry), the parent still held; one sweep releases it with the result; a duplicate entry delivers without a second decrement",
    async run(env) {
      const parentQ = await env.queue();
      const childQ = await otherSlot(env, [parentQ], 'xq');
      const [cid] = ids(env, 1) as [JobId];
      const { id: pid } = await parentQ.addFlow({ parent: { payload: 'parent' }, children: [{ id: cid, payload: 'child', queue: childQ.name }] });
      assert.equal(await parentQ.getState(pid), 'awaiting_children');
      const child = await claimed(childQ, cid, 'the child');
      assert.deepEqual(child.parent && [child.parent.id, child.parent.queue], [pid, parentQ.name]);
      await childQ.leases().complete(child, 'the-result');
      const [entry] = await outbox(env, childQ);
      assert.equal(await count(env, 'LLEN', childQ.keys.flowOutbox), 1);
      assert.equal(await deps(env, parentQ, pid), '1');
      assert.equal(await parentQ.leases().claim(30_000), undefined);

      await sweep(childQ, 1);
      assert.deepEqual(await outbox(env, childQ), []);
      assert.equal(await deps(env, parentQ, pid), '0');
      assert.equal(await parentQ.getState(pid), 'pending');
      assert.deepEqual({ ...(await parentQ.childrenValues(pid)) }, { [cid]: 'the-result' });

      await env.command('RPUSH', childQ.keys.flowOutbox, present(entry, 'the outbox entry'));
      await sweep(childQ, 1);
      assert.deepEqual(await outbox(env, childQ), []);
      assert.equal(await deps(env, parentQ, pid), '0');
      assert.equal(await count(env, 'ZCARD', parentQ.keys.pending), 1);
      assert.equal((await claimed(parentQ, pid, 'the released parent')).payload, 'parent');
    },
  },
  {
    no: 51,
    name: 'flow_fail_parent',
    family: 'flows',
    contract: 'a same-queue fail-parent child that dies kills its parent in the same step; cross-queue the parent is held until a sweep, then dead with the child in :failed; a second delivery changes nothing',
    async run(env) {
      const q = await env.queue();
      const [c1, c2, xc] = ids(env, 3) as [JobId, JobId, JobId];
      const { id: pid } = await q.addFlow({
        parent: { payload: 'p' },
        children: [
          { id: c1, payload: 'a' },
          { id: c2, payload: 'b' },
        ],
      });
      assert.equal(await q.leases().retry(await claimed(q, c1, 'child 1'), 0, 1, 'boom'), 'dead');
      assert.equal(await env.command('HGET', q.keys.job(pid), 'state'), 'dead');
      assert.equal(await inSet(env, q, 'dead', pid), true);
      assert.equal(await inSet(env, q, 'dead', c1), true);
      assert.deepEqual(await failedChildren(env, q, pid), { [c1]: 'boom' });
      // The sibling's later completion cannot bring a dead parent back.
      await q.leases().complete(await claimed(q, c2, 'child 2'));
      assert.equal(await env.command('HGET', q.keys.job(pid), 'state'), 'dead');
      assert.equal(await inSet(env, q, 'pending', pid), false);

      const childQ = await otherSlot(env, [q], 'xqf');
      const { id: xp } = await q.addFlow({ parent: { payload: 'p' }, children: [{ id: xc, payload: 'c', queue: childQ.name }] });
      assert.equal(await childQ.leases().retry(await claimed(childQ, xc, 'the cross child'), 0, 1, 'bad\0bytes'), 'dead');
      assert.equal(await inSet(env, childQ, 'dead', xc), true);
      const [entry] = await outbox(env, childQ);
      assert.equal(await q.getState(xp), 'awaiting_children');
      assert.equal(await inSet(env, q, 'dead', xp), false);

      await sweep(childQ, 1);
      assert.equal(await env.command('HGET', q.keys.job(xp), 'state'), 'dead');
      assert.equal(await inSet(env, q, 'dead', xp), true);
      assert.deepEqual(await failedChildren(env, q, xp), { [xc]: 'bad\0bytes' });

      await env.command('RPUSH', childQ.keys.flowOutbox, present(entry, 'the outbox entry'));
      await sweep(childQ, 1);
      assert.equal(await inSet(env, q, 'dead', xp), true);
      assert.equal(await count(env, 'HLEN', q.keys.jobSub(xp, 'failed')), 1);
      assert.equal(await deps(env, q, xp), '1');
    },
  },
];
