/** K. Batches, scenarios 62–67: flat batch claims and the shaper. */
import assert from 'node:assert/strict';
import { InvalidArgumentError, type JobId, type LifecycleEvent } from '@echo/protocol';
import { fixed, type BatchPartition, type BatchVerdict, type Queue } from '@echo/queue';
import { decideBatch, type ShapeDecision } from '@echo/queue/internal';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import { assertError, assertFields, count, hgetall, sleep, thrown, until, zscore } from '../support.js';

/** queue.md §7 shaping vectors: depth, elapsed, minSize, timeout → decision. */
const SHAPING_VECTORS: [number, number, number, number, ShapeDecision][] = [
  [10, 50, 10, 200, { action: 'flush', size: 10 }],
  [12, 50, 10, 200, { action: 'flush', size: 12 }],
  [3, 50, 10, 200, { action: 'wait' }],
  [3, 200, 10, 200, { action: 'flush', size: 3 }],
  [0, 200, 10, 200, { action: 'wait' }],
];

/** Admits `n` jobs with payloads 0..n-1 in one bulk call; answers their ids in mint order. */
export async function fill(env: ScenarioEnv, q: Queue, n: number): Promise<JobId[]> {
  const ids = Array.from({ length: n }, () => env.mintId('JOB'));
  const verdicts = await q.enqueueMany(ids.map((id, i) => ({ id, payload: i })));
  assert.deepEqual(
    verdicts.map((v) => v.status),
    ids.map(() => 'enqueued'),
  );
  return ids;
}

export async function depth(env: ScenarioEnv, q: Queue): Promise<number> {
  return count(env, 'ZCARD', q.keys.pending);
}

export const batches: Scenario[] = [
  {
    no: 62,
    name: 'batch_claim',
    family: 'batches',
    contract: 'from 8 pending, a batch claim of 4 returns exactly the 4 oldest in mint order, each token 1, sharing one active deadline',
    async run(env) {
      const q = await env.queue();
      const ids = await fill(env, q, 8);
      const batch = await q.leases().claimBatch(4, 30_000);
      assert.deepEqual(
        batch.map((j) => j.id),
        ids.slice(0, 4),
      );
      assert.deepEqual(
        batch.map((j) => j.attempts),
        [1, 1, 1, 1],
      );
      assert.deepEqual(
        batch.map((j) => j.payload),
        [0, 1, 2, 3],
      );
      const deadlines = await Promise.all(batch.map((j) => zscore(env, q.keys.active, j.id)));
      assert.equal(new Set(deadlines).size, 1, 'one deadline for the whole batch');
      assert.notEqual(deadlines[0], null);
      assert.equal(await depth(env, q), 4);
    },
  },
  {
    no: 63,
    name: 'batch_claim_short',
    family: 'batches',
    contract: 'with M < N pending, asking N returns M; an empty pending returns empty; a paused queue returns empty and leaves pending unchanged',
    async run(env) {
      const q = await env.queue();
      const ids = await fill(env, q, 3);
      assert.deepEqual(
        (await q.leases().claimBatch(5, 30_000)).map((j) => j.id),
        ids,
      );
      assert.equal((await q.leases().claimBatch(5, 30_000)).length, 0);
      assert.equal(await count(env, 'ZCARD', q.keys.active), 3);
      const waiting = await fill(env, q, 2);
      await q.pause();
      assert.equal((await q.leases().claimBatch(5, 30_000)).length, 0);
      assert.deepEqual(await env.command('ZRANGE', q.keys.pending, 0, -1), waiting);
    },
  },
  {
    no: 64,
    name: 'batch_partial_failure',
    family: 'batches',
    contract: 'one batch member retried (scheduled, last_error kept), the others complete; after promote a new batch holds only it, token 2',
    async run(env) {
      const q = await env.queue();
      const [a, b, c] = (await fill(env, q, 3)) as [JobId, JobId, JobId];
      const batch = await q.leases().claimBatch(3, 30_000);
      assert.equal(batch.length, 3);
      for (const job of batch) {
        if (job.id === b) assert.equal(await q.leases().retry(job, 10, 3, 'member b failed'), 'scheduled');
        else await q.leases().complete(job);
      }
      assertFields(await hgetall(env, q.keys.job(b)), { state: 'scheduled', last_error: 'member b failed' }, 'row b');
      assert.equal(await count(env, 'EXISTS', q.keys.job(a), q.keys.job(c)), 0);
      await sleep(30);
      assert.equal(await q.maintenance().promote(), 1);
      assert.deepEqual(
        (await q.leases().claimBatch(3, 30_000)).map((j) => [j.id, j.attempts]),
        [[b, 2]],
      );
    },
  },
  {
    no: 65,
    name: 'batch_shaping_floor',
    family: 'batches',
    contract: 'once pending reaches minSize the shaper decides flush(depth) and one batch of at least minSize is claimed and settled',
    async run(env) {
      for (const [d, elapsed, min, timeout, expected] of SHAPING_VECTORS) {
        assert.deepEqual(decideBatch(d, elapsed, min, timeout), expected, `decide(${d}, ${elapsed}, ${min}, ${timeout})`);
      }
      assertError(
        thrown(() => decideBatch(1, 0, 0, 10)),
        InvalidArgumentError,
      );
      assertError(
        thrown(() => decideBatch(1, 0, 10, 0)),
        InvalidArgumentError,
      );
      const q = await env.queue();
      const minSize = 4;
      await fill(env, q, minSize - 1);
      assert.deepEqual(decideBatch(await depth(env, q), 0, minSize, 10_000), { action: 'wait' });
      await fill(env, q, 1);
      const decision = decideBatch(await depth(env, q), 0, minSize, 10_000);
      assert.deepEqual(decision, { action: 'flush', size: minSize });
      const batch = await q.leases().claimBatch(decision.size, 30_000);
      assert.ok(batch.length >= minSize, `a batch of at least ${minSize}`);
      for (const job of batch) await q.leases().complete(job);
      assert.deepEqual({ ...(await q.counts('pending', 'active', 'completed')) }, { pending: 0, active: 0, completed: minSize });
    },
  },
  {
    no: 66,
    name: 'batch_shaping_timeout',
    family: 'batches',
    contract: 'with an injected clock: M < minSize at the timeout flushes M; before the timeout waits; depth 0 at the timeout waits',
    async run(env) {
      const q = await env.queue();
      const clock = { now: 1_000 };
      const since = clock.now;
      const [minSize, timeoutMs] = [10, 200];
      assert.deepEqual(decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs), { action: 'wait' });
      clock.now += timeoutMs;
      assert.deepEqual(decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs), { action: 'wait' }, 'depth 0 at the timeout waits');
      const ids = await fill(env, q, 3);
      clock.now = since + timeoutMs - 1;
      assert.deepEqual(decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs), { action: 'wait' }, 'before the timeout waits');
      clock.now = since + timeoutMs;
      const decision = decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs);
      assert.deepEqual(decision, { action: 'flush', size: 3 });
      assert.deepEqual(
        (await q.leases().claimBatch(decision.size, 30_000)).map((j) => j.id),
        ids,
      );
    },
  },
  {
    no: 67,
    name: 'batch_shaping_partial_failure',
    family: 'batches',
    contract: 'batch verdicts fail one member (retried, last_error kept) and complete the others; a member missing a verdict is retried; each publishes its own event',
    async run(env) {
      const q = await env.queue();
      const [ok1, bad, missing, ok2] = (await fill(env, q, 4)) as [JobId, JobId, JobId, JobId];
      const events = await env.events(q);
      const seen: LifecycleEvent[] = [];
      events.on((e) => seen.push(e));
      const partitions: BatchPartition[] = [];
      const worker = await env.startBatchWorker(
        q,
        (jobs) => new Map<string, BatchVerdict>(jobs.filter((j) => j.id !== missing).map((j) => [j.id, j.id === bad ? { error: 'bad member' } : 'ok'])),
        { shape: { minSize: 4, timeoutMs: 5_000 }, backoff: fixed(60_000), maintenanceMs: 0, blockMs: 50, onBatch: (p) => void partitions.push(p) },
      );
      await until(() => partitions.length > 0 && seen.length >= 4, 'the batch to settle and publish');
      await worker.close();
      assert.deepEqual(partitions[0], { completed: [ok1, ok2], retried: [bad, missing], dead: [], delayed: [] });
      assertFields(await hgetall(env, q.keys.job(bad)), { state: 'scheduled', last_error: 'bad member' }, 'row of the failed member');
      assertFields(await hgetall(env, q.keys.job(missing)), { state: 'scheduled', last_error: 'missing verdict' }, 'row of the member without a verdict');
      assert.equal(await count(env, 'EXISTS', q.keys.job(ok1), q.keys.job(ok2)), 0);
      const byJob = new Map(seen.map((e) => [e.job, e]));
      assert.equal(byJob.get(ok1)?.event, 'completed');
      assert.equal(byJob.get(ok2)?.event, 'completed');
      for (const id of [bad, missing]) {
        assert.equal(byJob.get(id)?.event, 'failed');
        assert.equal(byJob.get(id)?.fields.outcome, 'scheduled');
      }
    },
  },
];
