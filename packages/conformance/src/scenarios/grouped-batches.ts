/** K. Batches, scenarios 68–70: lane batches, served from one rotated lane under its limit. */
import assert from 'node:assert/strict';
import { drainAll, fillLane } from './lanes.js';
import type { Scenario } from '../scenario.js';
import { hgetall, lrange, present, zscore } from '../support.js';

export const groupedBatches: Scenario[] = [
  {
    no: 68,
    name: 'grouped_batch_affinity',
    family: 'batches',
    contract: 'one lane batch claim over two flooded lanes serves members of the one rotated lane only (row group agrees), each token 1, one deadline',
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      for (let i = 0; i < 10; i++) {
        await q.enqueueInLane(a, i);
        await q.enqueueInLane(b, i);
      }
      const batch = await q.leases().laneBatchClaim(30_000);
      assert.equal(batch.length, 10);
      const g = present(batch[0]?.group, 'the rotated lane');
      assert.equal(g, a, 'the rotation chose the first lane rung');
      for (const job of batch) {
        assert.equal(job.group, g);
        assert.equal(job.attempts, 1);
        assert.equal(await env.command('HGET', q.keys.job(job.id), 'group'), g);
      }
      const deadlines = await Promise.all(batch.map((j) => zscore(env, q.keys.active, j.id)));
      assert.equal(new Set(deadlines).size, 1, 'one deadline for the whole batch');
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '10' });
      assert.deepEqual(await lrange(env, q.keys.ring), [b]);
    },
  },
  {
    no: 69,
    name: 'grouped_batch_ceiling',
    family: 'batches',
    contract: 'a lane with limit 3 and 8 jobs gives a batch of exactly 3 and gactive 3; the next claim is empty; after one complete a claim serves again',
    async run(env) {
      const q = await env.queue();
      const a = env.mintId('PRT');
      await q.laneLimit(a, 3);
      await fillLane(q, a, 8);
      const batch = await q.leases().laneBatchClaim(30_000);
      assert.equal(batch.length, 3);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '3' });
      assert.equal((await q.leases().laneBatchClaim(30_000)).length, 0);
      await q.leases().complete(present(batch[0], 'a batch member'));
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '2' });
      assert.equal((await q.leases().laneBatchClaim(30_000)).length, 1);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '3' });
      assert.deepEqual([...(await q.laneDepths([a]))], [4]);
    },
  },
  {
    no: 70,
    name: 'grouped_batch_fairness',
    family: 'batches',
    contract: 'heavy 40 jobs, two light lanes of 4, every lane limit 2: both light lanes are served within 9 completed lane batches; every lane drains to 0',
    async run(env) {
      const q = await env.queue();
      const [heavy, l1, l2] = [env.mintId('PRT'), env.mintId('PRT'), env.mintId('PRT')];
      for (const g of [heavy, l1, l2]) await q.laneLimit(g, 2);
      await fillLane(q, heavy, 40);
      await fillLane(q, l1, 4);
      await fillLane(q, l2, 4);
      const seen = new Set<string>();
      for (let i = 0; i < 9; i++) {
        const batch = await q.leases().laneBatchClaim(30_000);
        assert.ok(batch.length <= 2, 'a batch never passes the lane limit');
        for (const job of batch) {
          seen.add(present(job.group, 'the served lane'));
          await q.leases().complete(job);
        }
      }
      assert.ok(seen.has(l1) && seen.has(l2), 'both light lanes were served within 9 batches');
      await drainAll(q, () => q.leases().laneBatchClaim(30_000));
      assert.deepEqual([...(await q.laneDepths([heavy, l1, l2]))], [0, 0, 0]);
      assert.deepEqual(await hgetall(env, q.keys.gactive), {});
      assert.deepEqual(await lrange(env, q.keys.ring), []);
    },
  },
];
