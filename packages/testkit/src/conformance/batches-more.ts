/** K. Batches, scenarios 68–73: grouped batches, the partition, and delay. */
import assert from 'node:assert/strict';
import { depth, fill } from './batches.js';
import { drainAll, fillLane } from './lanes.js';
import type { Scenario } from './scenario.js';
import { assertError, assertFields, hgetall, lrange, present, rejection, setsHolding, sleep, zscore } from './support.js';
import type { BatchVerdictLike, ClaimedJobLike } from './types.js';

type Outcome = 'ok' | 'scheduled' | 'dead' | 'stale' | 'gone';
interface Entry {
  verdict: BatchVerdictLike;
  outcome: Outcome;
}

export const batchesMore: Scenario[] = [
  {
    no: 68,
    name: 'grouped_batch_affinity',
    family: 'batches',
    needs: ['openQueue'],
    contract: 'one lane batch claim over two flooded lanes serves members of the one rotated lane only (row group agrees), each token 1, one deadline',
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      for (let i = 0; i < 10; i++) {
        await q.enqueueInLane(a, i);
        await q.enqueueInLane(b, i);
      }
      const batch = await q.laneBatchClaim(30_000);
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
    needs: ['openQueue'],
    contract: 'a lane with limit 3 and 8 jobs gives a batch of exactly 3 and gactive 3; the next claim is empty; after one complete a claim serves again',
    async run(env) {
      const q = await env.queue();
      const a = env.mintId('PRT');
      await q.laneLimit(a, 3);
      await fillLane(q, a, 8);
      const batch = await q.laneBatchClaim(30_000);
      assert.equal(batch.length, 3);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '3' });
      assert.equal((await q.laneBatchClaim(30_000)).length, 0);
      await q.complete(present(batch[0], 'a batch member'));
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '2' });
      assert.equal((await q.laneBatchClaim(30_000)).length, 1);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '3' });
      assert.deepEqual([...(await q.laneDepths([a]))], [4]);
    },
  },
  {
    no: 70,
    name: 'grouped_batch_fairness',
    family: 'batches',
    needs: ['openQueue'],
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
        const batch = await q.laneBatchClaim(30_000);
        assert.ok(batch.length <= 2, 'a batch never passes the lane limit');
        for (const job of batch) {
          seen.add(present(job.group, 'the served lane'));
          await q.complete(job);
        }
      }
      assert.ok(seen.has(l1) && seen.has(l2), 'both light lanes were served within 9 batches');
      await drainAll(q, () => q.laneBatchClaim(30_000));
      assert.deepEqual([...(await q.laneDepths([heavy, l1, l2]))], [0, 0, 0]);
      assert.deepEqual(await hgetall(env, q.keys.gactive), {});
      assert.deepEqual(await lrange(env, q.keys.ring), []);
    },
  },
  {
    no: 71,
    name: 'batch_partition',
    family: 'batches',
    needs: ['openQueue', 'host'],
    contract: 'a mixed batch (completed, retried, retried past the cap, delayed) partitions every id exactly once; dead comes from the retry outcome; no verdict counts as retried',
    async run(env) {
      const partition = env.host.partitionBatch.bind(env.host);
      const [a, b, c, d] = ['a', 'b', 'c', 'd'];
      const vector = new Map<string, Entry>([
        [a, { verdict: 'ok', outcome: 'ok' }],
        [b, { verdict: { error: 'x' }, outcome: 'scheduled' }],
        [c, { verdict: { error: 'x' }, outcome: 'dead' }],
        [d, { verdict: { delay: 10 }, outcome: 'ok' }],
      ]);
      assert.deepEqual(partition([a, b, c, d], vector), { completed: [a], retried: [b], dead: [c], delayed: [d] });
      assert.deepEqual(partition([a, b], new Map([[a, { verdict: 'ok', outcome: 'ok' }]])), { completed: [a], retried: [b], dead: [], delayed: [] });
      const odd = new Map<string, Entry>([
        [a, { verdict: 'ok', outcome: 'stale' }],
        [b, { verdict: { delay: 5 }, outcome: 'gone' }],
      ]);
      assert.deepEqual(partition([a, b], odd), { completed: [], retried: [a, b], dead: [], delayed: [] });

      const q = await env.queue();
      await fill(env, q, 4);
      const batch = await q.claimBatch(4, 30_000);
      assert.equal(batch.length, 4);
      const [done, again, dying, later] = batch as readonly [ClaimedJobLike, ClaimedJobLike, ClaimedJobLike, ClaimedJobLike];
      const settled = new Map<string, Entry>();
      await q.complete(done);
      settled.set(done.id, { verdict: 'ok', outcome: 'ok' });
      settled.set(again.id, { verdict: { error: 'e' }, outcome: await q.retry(again, 60_000, 3, 'e') });
      settled.set(dying.id, { verdict: { error: 'e' }, outcome: await q.retry(dying, 0, 1, 'e') });
      await q.delay(later, 60_000);
      settled.set(later.id, { verdict: { delay: 60_000 }, outcome: 'ok' });
      const part = partition(
        batch.map((j) => j.id),
        settled,
      );
      assert.deepEqual(part, { completed: [done.id], retried: [again.id], dead: [dying.id], delayed: [later.id] });
      assert.deepEqual([...part.completed, ...part.retried, ...part.dead, ...part.delayed].sort(), batch.map((j) => j.id).sort());
      assert.deepEqual(await setsHolding(env, q, dying.id), ['dead']);
      assert.deepEqual(await setsHolding(env, q, again.id), ['schedule']);
      assert.deepEqual(await setsHolding(env, q, later.id), ['schedule']);
    },
  },
  {
    no: 72,
    name: 'batch_delay',
    family: 'batches',
    needs: ['openQueue'],
    contract: 'delaying an active member moves it to schedule (state=scheduled, attempts kept, gone from active), unclaimable until due; after promote the claim gets the next token',
    async run(env) {
      const q = await env.queue();
      const [id] = (await fill(env, q, 1)) as [string];
      const [job] = await q.claimBatch(2, 30_000);
      await q.delay(present(job, 'the claimed member'), 250);
      assert.deepEqual(await hgetall(env, q.keys.job(id)), { state: 'scheduled', attempts: '1', payload: q.codec.encode(0) });
      assert.deepEqual(await setsHolding(env, q, id), ['schedule']);
      assert.equal((await q.claimBatch(2, 30_000)).length, 0);
      assert.equal(await q.promote(), 0);
      await sleep(300);
      assert.equal(await q.promote(), 1);
      const [next] = await q.claimBatch(2, 30_000);
      assert.deepEqual([next?.id, next?.attempts], [id, 2]);
    },
  },
  {
    no: 73,
    name: 'batch_delay_stale',
    family: 'batches',
    needs: ['openQueue'],
    contract: "after a reap and re-claim the first holder's delay gives stale and the new lease is untouched; the new holder's delay succeeds; a missing row gives gone",
    async run(env) {
      const q = await env.queue();
      const [id] = (await fill(env, q, 1)) as [string];
      const [first] = await q.claimBatch(1, 30);
      await sleep(60);
      assert.equal(await q.reap(), 1);
      const second = present((await q.claimBatch(1, 30_000))[0], 'the re-claimed member');
      assert.equal(second.attempts, 2);
      const lease = await zscore(env, q.keys.active, id);
      assertError(await rejection(q.delay(present(first, 'the first holder'), 1_000)), 'StaleError');
      assert.equal(await zscore(env, q.keys.active, id), lease);
      assert.equal(await env.command('HGET', q.keys.job(id), 'state'), 'active');
      await q.delay(second, 1_000);
      assertFields(await hgetall(env, q.keys.job(id)), { state: 'scheduled', attempts: '2' }, 'row');
      assertError(await rejection(q.delay({ id: env.mintId('JOB'), attempts: 1 }, 1_000)), 'GoneError');
      assert.equal(await depth(env, q), 0);
    },
  },
];
