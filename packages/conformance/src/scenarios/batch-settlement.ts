/** K. Batches, scenarios 71–73: the partition of a settled batch, and delaying a member. */
import assert from 'node:assert/strict';
import { GoneError, StaleError, type JobId } from '@echo/protocol';
import type { BatchVerdict, ClaimedJob } from '@echo/queue';
import { partitionBatch, type SettleOutcome } from '@echo/queue/internal';
import { depth, fill } from './batches.js';
import type { Scenario } from '../scenario.js';
import { assertError, assertFields, hgetall, present, rejection, setsHolding, sleep, zscore } from '../support.js';

interface Entry {
  verdict: BatchVerdict;
  outcome: SettleOutcome;
}

export const batchSettlement: Scenario[] = [
  {
    no: 71,
    name: 'batch_partition',
    family: 'batches',
    contract: 'a mixed batch (completed, retried, retried past the cap, delayed) partitions every id exactly once; dead comes from the retry outcome; no verdict counts as retried',
    async run(env) {
      const [a, b, c, d] = ['a', 'b', 'c', 'd'];
      const vector = new Map<string, Entry>([
        [a, { verdict: 'ok', outcome: 'ok' }],
        [b, { verdict: { error: 'x' }, outcome: 'scheduled' }],
        [c, { verdict: { error: 'x' }, outcome: 'dead' }],
        [d, { verdict: { delay: 10 }, outcome: 'ok' }],
      ]);
      assert.deepEqual(partitionBatch([a, b, c, d], vector), { completed: [a], retried: [b], dead: [c], delayed: [d] });
      assert.deepEqual(partitionBatch([a, b], new Map([[a, { verdict: 'ok', outcome: 'ok' }]])), { completed: [a], retried: [b], dead: [], delayed: [] });
      const odd = new Map<string, Entry>([
        [a, { verdict: 'ok', outcome: 'stale' }],
        [b, { verdict: { delay: 5 }, outcome: 'gone' }],
      ]);
      assert.deepEqual(partitionBatch([a, b], odd), { completed: [], retried: [a, b], dead: [], delayed: [] });

      const q = await env.queue();
      await fill(env, q, 4);
      const batch = await q.leases().claimBatch(4, 30_000);
      assert.equal(batch.length, 4);
      const [done, again, dying, later] = batch as [ClaimedJob<unknown>, ClaimedJob<unknown>, ClaimedJob<unknown>, ClaimedJob<unknown>];
      const settled = new Map<string, Entry>();
      await q.leases().complete(done);
      settled.set(done.id, { verdict: 'ok', outcome: 'ok' });
      settled.set(again.id, { verdict: { error: 'e' }, outcome: await q.leases().retry(again, 60_000, 3, 'e') });
      settled.set(dying.id, { verdict: { error: 'e' }, outcome: await q.leases().retry(dying, 0, 1, 'e') });
      await q.leases().delay(later, 60_000);
      settled.set(later.id, { verdict: { delay: 60_000 }, outcome: 'ok' });
      const part = partitionBatch(
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
    contract: 'delaying an active member moves it to schedule (state=scheduled, attempts kept, gone from active), unclaimable until due; after promote the claim gets the next token',
    async run(env) {
      const q = await env.queue();
      const [id] = (await fill(env, q, 1)) as [JobId];
      const [job] = await q.leases().claimBatch(2, 30_000);
      await q.leases().delay(present(job, 'the claimed member'), 250);
      assert.deepEqual(await hgetall(env, q.keys.job(id)), { state: 'scheduled', attempts: '1', payload: q.codec.encode(0) });
      assert.deepEqual(await setsHolding(env, q, id), ['schedule']);
      assert.equal((await q.leases().claimBatch(2, 30_000)).length, 0);
      assert.equal(await q.maintenance().promote(), 0);
      await sleep(300);
      assert.equal(await q.maintenance().promote(), 1);
      const [next] = await q.leases().claimBatch(2, 30_000);
      assert.deepEqual([next?.id, next?.attempts], [id, 2]);
    },
  },
  {
    no: 73,
    name: 'batch_delay_stale',
    family: 'batches',
    contract: "after a reap and re-claim the first holder's delay gives stale and the new lease is untouched; the new holder's delay succeeds; a missing row gives gone",
    async run(env) {
      const q = await env.queue();
      const [id] = (await fill(env, q, 1)) as [JobId];
      const [first] = await q.leases().claimBatch(1, 30);
      await sleep(60);
      assert.equal(await q.maintenance().reap(), 1);
      const second = present((await q.leases().claimBatch(1, 30_000))[0], 'the re-claimed member');
      assert.equal(second.attempts, 2);
      const lease = await zscore(env, q.keys.active, id);
      assertError(await rejection(q.leases().delay(present(first, 'the first holder'), 1_000)), StaleError);
      assert.equal(await zscore(env, q.keys.active, id), lease);
      assert.equal(await env.command('HGET', q.keys.job(id), 'state'), 'active');
      await q.leases().delay(second, 1_000);
      assertFields(await hgetall(env, q.keys.job(id)), { state: 'scheduled', attempts: '2' }, 'row');
      assertError(await rejection(q.leases().delay({ id: env.mintId('JOB'), attempts: 1 }, 1_000)), GoneError);
      assert.equal(await depth(env, q), 0);
    },
  },
];
