/** G. Flows, scenarios 52–55: ignore-dependency, bulk admission and three-level trees. */
import assert from 'node:assert/strict';
import { KindError, transitions, type JobId } from '@echo/protocol/extend';
import type { Queue } from '@echo/queue';
import { claimed, deps, failedChildren, otherSlot, sweep } from './flows.js';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import { assertError, count } from '../support.js';

const ids = (env: ScenarioEnv, n: number): JobId[] => Array.from({ length: n }, () => env.mintId('JOB'));

/** Claims `id` from `q` with token 1 and completes it. */
async function run(q: Queue, id: string, what: string): Promise<void> {
  await q.leases().complete(await claimed(q, id, what));
}

/** Claims `id` from `q` with token 1 and retries it at the cap, so it dies and its flow arm runs. */
async function kill(q: Queue, id: string, error: string): Promise<void> {
  assert.equal(await q.leases().retry(await claimed(q, id, `the dying ${id}`), 0, 1, error), 'dead');
}

/** Sweeps `q`'s outbox until it is empty; answers how many signals went out. */
async function sweepAll(q: Queue): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await q.maintenance().deliverOutbox();
    assert.equal(done.poisoned, false);
    if (done.delivered === 0) return total;
    total += done.delivered;
  }
}

export const flowTrees: Scenario[] = [
  {
    no: 52,
    name: 'flow_ignore_dep',
    family: 'flows',
    contract: 'an ignore-dependency child that dies still counts its parent down, is recorded in :unsuccessful not :processed; the sibling releases the parent; an unknown parent reads {}',
    async run(env) {
      const q = await env.queue();
      const [c1, c2] = ids(env, 2) as [JobId, JobId];
      const { id: pid } = await q.addFlow({
        parent: { payload: 'p' },
        children: [
          { id: c1, payload: 'a', ignoreDependencyOnFailure: true },
          { id: c2, payload: 'b' },
        ],
      });
      await kill(q, c1, 'meh');
      assert.equal(await deps(env, q, pid), '1');
      assert.equal(await q.getState(pid), 'awaiting_children');
      await run(q, c2, 'the sibling');
      assert.equal(await q.getState(pid), 'pending');
      assert.deepEqual({ ...(await q.ignoredFailures(pid)) }, { [c1]: 'meh' });
      assert.deepEqual({ ...(await q.childrenValues(pid)) }, { [c2]: c2 });
      assert.deepEqual({ ...(await q.ignoredFailures(env.mintId('JOB'))) }, {});
    },
  },
  {
    no: 53,
    name: 'flow_add_bulk',
    family: 'flows',
    contract: 'three flows added in bulk, the third with a cross-queue ORD child: the first two land and are returned; the third is left out but its parent stays held; the landed children claim',
    async run(env) {
      const q = await env.queue();
      const x = await otherSlot(env, [q], 'bulkx');
      const [p1, p2, p3, a, b, c] = ids(env, 6) as [JobId, JobId, JobId, JobId, JobId, JobId];
      const ord = env.mintId('ORD');
      const refused: [number, unknown][] = [];
      const landed = await q.addFlowBulk(
        [
          {
            parent: { id: p1, payload: 'p1' },
            children: [
              { id: a, payload: 'a' },
              { id: b, payload: 'b' },
            ],
          },
          { parent: { id: p2, payload: 'p2' }, children: [{ id: c, payload: 'c', queue: x.name }] },
          { parent: { id: p3, payload: 'p3' }, children: [{ id: ord, payload: 'bad', queue: x.name }] },
        ],
        (index, error) => refused.push([index, error]),
      );
      assert.deepEqual(
        landed.map((f) => f.id),
        [p1, p2],
      );
      assert.deepEqual(
        refused.map(([index]) => index),
        [2],
      );
      assertError(refused[0]?.[1], KindError, { errorClass: 'EMQKIND' });
      assert.equal(await q.getState(p3), 'awaiting_children');
      assert.equal(await deps(env, q, p3), '1');
      assert.equal(await count(env, 'EXISTS', x.keys.job(ord)), 0);
      await run(q, a, 'flow 1, child a');
      await run(q, b, 'flow 1, child b');
      await run(x, c, 'flow 2, cross-queue child');
      // The landed children released their parents (flow 2's after a sweep); the third stays held.
      await run(q, p1, 'flow 1, released parent');
      await sweep(x, 1);
      await run(q, p2, 'flow 2, released parent');
      assert.equal(await q.leases().claim(30_000), undefined);
      assert.equal(await x.leases().claim(30_000), undefined);
      assert.equal(await q.getState(p3), 'awaiting_children');
    },
  },
  {
    no: 54,
    name: 'flow_grandchild',
    family: 'flows',
    contract: "three-level trees, in one queue and across three: the grandchild releases the node, the node the root, each claimed with token 1; across queues each hop waits for a sweep of the child's queue",
    async run(env) {
      const q = await env.queue();
      const [root, node, leaf] = ids(env, 3) as [JobId, JobId, JobId];
      await q.addFlow({ parent: { id: root, payload: 'root' }, children: [{ id: node, payload: 'node', children: [{ id: leaf, payload: 'leaf' }] }] });
      assert.deepEqual([await q.getState(root), await q.getState(node)], ['awaiting_children', 'awaiting_children']);
      await run(q, leaf, 'the grandchild');
      assert.equal(await q.getState(node), 'pending');
      assert.equal(await q.getState(root), 'awaiting_children');
      await run(q, node, 'the released node');
      assert.equal(await q.getState(root), 'pending');
      await run(q, root, 'the released root');

      const xn = await otherSlot(env, [q], 'xn');
      const xg = await otherSlot(env, [q, xn], 'xg');
      const [xroot, xnode, xleaf] = ids(env, 3) as [JobId, JobId, JobId];
      await q.addFlow({
        parent: { id: xroot, payload: 'root' },
        children: [{ id: xnode, payload: 'node', queue: xn.name, children: [{ id: xleaf, payload: 'leaf', queue: xg.name }] }],
      });
      await run(xg, xleaf, 'the cross-queue grandchild');
      assert.equal(await xn.getState(xnode), 'awaiting_children');
      await sweep(xg, 1);
      await run(xn, xnode, 'the node after its sweep');
      assert.equal(await q.getState(xroot), 'awaiting_children');
      await sweep(xn, 1);
      await run(q, xroot, 'the root after its sweep');
    },
  },
  {
    no: 55,
    name: 'flow_grandchild_fail',
    family: 'flows',
    contract:
      'fail-parent at every level: the grandchild dies, then the node (same step in one queue, by sweep across), then the root; each :failed records the child below; plus a 4-level chain, an ignore-dependency top hop, and a root failed only once',
    async run(env) {
      const q = await env.queue();

      // One queue: the node dies in the grandchild's own step; the failure then climbs to the root.
      const [root, node, leaf] = ids(env, 3) as [JobId, JobId, JobId];
      await q.addFlow({ parent: { id: root, payload: 'root' }, children: [{ id: node, payload: 'node', children: [{ id: leaf, payload: 'leaf' }] }] });
      await kill(q, leaf, 'leaf died');
      assert.equal(await q.getState(node), 'dead');
      assert.deepEqual(await failedChildren(env, q, node), { [leaf]: 'leaf died' });
      assert.equal(await q.getState(root), 'awaiting_children');
      assert.equal(await env.execute(transitions.flowReemit({ queue: q.name, id: node, error: 'leaf died' })), true);
      await sweep(q, 1);
      assert.equal(await q.getState(root), 'dead');
      assert.deepEqual(await failedChildren(env, q, root), { [node]: 'leaf died' });
      // A repeated delivery fails the root only once.
      assert.equal(await env.execute(transitions.flowReemit({ queue: q.name, id: node, error: 'leaf died' })), true);
      await sweep(q, 1);
      assert.equal(await count(env, 'HLEN', q.keys.jobSub(root, 'failed')), 1);
      assert.equal(await q.getState(root), 'dead');

      // Across three queues: every hop waits for a sweep of the queue below it.
      const fxn = await otherSlot(env, [q], 'fxn');
      const fxg = await otherSlot(env, [q, fxn], 'fxg');
      const [xroot, xnode, xleaf] = ids(env, 3) as [JobId, JobId, JobId];
      await q.addFlow({
        parent: { id: xroot, payload: 'root' },
        children: [{ id: xnode, payload: 'node', queue: fxn.name, children: [{ id: xleaf, payload: 'leaf', queue: fxg.name }] }],
      });
      await kill(fxg, xleaf, 'leaf died');
      assert.equal(await fxn.getState(xnode), 'awaiting_children');
      await sweep(fxg, 1);
      assert.equal(await fxn.getState(xnode), 'dead');
      assert.deepEqual(await failedChildren(env, fxn, xnode), { [xleaf]: 'leaf died' });
      assert.equal(await q.getState(xroot), 'awaiting_children');
      await sweep(fxn, 1);
      assert.equal(await q.getState(xroot), 'dead');
      assert.deepEqual(await failedChildren(env, q, xroot), { [xnode]: 'leaf died' });

      // A 4-level chain in one queue dies level by level up to the top.
      const chain = ids(env, 4) as [JobId, JobId, JobId, JobId];
      await q.addFlow({
        parent: { id: chain[0], payload: 'top' },
        children: [{ id: chain[1], payload: 'mid-1', children: [{ id: chain[2], payload: 'mid-2', children: [{ id: chain[3], payload: 'bottom' }] }] }],
      });
      await kill(q, chain[3], 'bottom died');
      assert.equal(await env.execute(transitions.flowReemit({ queue: q.name, id: chain[2], error: 'bottom died' })), true);
      assert.equal(await sweepAll(q), 2);
      for (const id of chain) assert.equal(await q.getState(id), 'dead', `chain member ${id}`);
      assert.deepEqual(await failedChildren(env, q, chain[0]), { [chain[1]]: 'bottom died' });

      // An ignore-dependency top hop: the node's death counts the root down, and the root goes on.
      const [iroot, inode, ileaf, sibling] = ids(env, 4) as [JobId, JobId, JobId, JobId];
      await q.addFlow({
        parent: { id: iroot, payload: 'root' },
        children: [
          { id: inode, payload: 'node', ignoreDependencyOnFailure: true, children: [{ id: ileaf, payload: 'leaf' }] },
          { id: sibling, payload: 'sibling' },
        ],
      });
      await kill(q, ileaf, 'leaf died');
      assert.equal(await q.getState(inode), 'dead');
      assert.equal(await env.execute(transitions.flowReemit({ queue: q.name, id: inode, error: 'leaf died' })), true);
      await sweep(q, 1);
      assert.equal(await q.dependencies(iroot), 1);
      assert.deepEqual({ ...(await q.ignoredFailures(iroot)) }, { [inode]: 'leaf died' });
      await run(q, sibling, 'the sibling');
      assert.equal(await q.getState(iroot), 'pending');
      await run(q, iroot, 'the root that went on');
    },
  },
];
