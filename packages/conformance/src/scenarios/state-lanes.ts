/** A. The state machine, scenarios 12–14: lanes served in rotation, paused and limited. */
import assert from 'node:assert/strict';
import type { Scenario } from '../scenario.js';
import { count, present } from '../support.js';

export const stateLanes: Scenario[] = [
  {
    no: 12,
    name: 'rotate',
    family: 'state',
    contract: 'two lanes with two jobs each are served a, b, a, b, each with token 1',
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      await q.enqueueInLane(a, 'a1');
      await q.enqueueInLane(a, 'a2');
      await q.enqueueInLane(b, 'b1');
      await q.enqueueInLane(b, 'b2');
      const served = [];
      for (let i = 0; i < 4; i++) served.push(present(await q.leases().laneClaim(30_000), `lane claim ${i + 1}`));
      assert.deepEqual(
        served.map((j) => j.group),
        [a, b, a, b],
      );
      assert.deepEqual(
        served.map((j) => j.payload),
        ['a1', 'b1', 'a2', 'b2'],
      );
      assert.deepEqual(
        served.map((j) => j.attempts),
        [1, 1, 1, 1],
      );
    },
  },
  {
    no: 13,
    name: 'pause',
    family: 'state',
    contract: "pause lane a: b is served twice, then the claim is empty while a's depth is 2; after resume a is served",
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      for (const g of [a, a, b, b]) await q.enqueueInLane(g, g === a ? 'a' : 'b');
      await q.lanePause(a);
      assert.equal((await q.leases().laneClaim(30_000))?.group, b);
      assert.equal((await q.leases().laneClaim(30_000))?.group, b);
      assert.equal(await q.leases().laneClaim(30_000), undefined);
      assert.deepEqual([...(await q.laneDepths([a]))], [2]);
      assert.equal(await count(env, 'ZCARD', q.keys.lane(a)), 2);
      await q.laneResume(a);
      const resumed = present(await q.leases().laneClaim(30_000), 'a claim after resume');
      assert.equal(resumed.group, a);
      assert.equal(resumed.attempts, 1);
    },
  },
  {
    no: 14,
    name: 'limit',
    family: 'state',
    contract: 'with lane limit 1 a second claim is empty while the first job is in flight; after it completes the next is served',
    async run(env) {
      const q = await env.queue();
      const g = env.mintId('PRT');
      await q.enqueueInLane(g, 'one');
      await q.enqueueInLane(g, 'two');
      await q.laneLimit(g, 1);
      const first = present(await q.leases().laneClaim(30_000), 'the first lane claim');
      assert.equal(first.payload, 'one');
      assert.equal(await q.leases().laneClaim(30_000), undefined);
      assert.equal(await env.command('HGET', q.keys.gactive, g), '1');
      await q.leases().complete(first);
      const second = present(await q.leases().laneClaim(30_000), 'the claim after complete');
      assert.equal(second.payload, 'two');
      assert.equal(second.attempts, 1);
    },
  },
];
