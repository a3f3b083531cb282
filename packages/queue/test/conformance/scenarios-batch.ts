/** K. Batches (62–67, 71–73) and the TS-only extension `ts_complete_cleans`. */
import { expect } from 'vitest';
import { GoneError, InvalidArgumentError, mintId, StaleError, type JobId, type LifecycleEvent } from '@echo/protocol';
import {
  BatchWorker,
  decideBatch,
  fixed,
  partitionBatch,
  type BatchPartition,
  type BatchVerdict,
  type ClaimedJob,
  type Queue,
  type SettleOutcome,
} from '../../src/index.js';
import { expectError, hgetall, rejection, setsHolding, sleep, until, zscore, type Scenario, type ScenarioEnv } from './harness.js';

/** queue.md §7 shaping vectors: depth, elapsed, minSize, timeout → decision. */
const SHAPING_VECTORS: [number, number, number, number, ReturnType<typeof decideBatch>][] = [
  [10, 50, 10, 200, { action: 'flush', size: 10 }],
  [12, 50, 10, 200, { action: 'flush', size: 12 }],
  [3, 50, 10, 200, { action: 'wait' }],
  [3, 200, 10, 200, { action: 'flush', size: 3 }],
  [0, 200, 10, 200, { action: 'wait' }],
];

async function fill(q: Queue<number>, n: number): Promise<JobId[]> {
  const ids = Array.from({ length: n }, () => mintId('JOB'));
  const verdicts = await q.enqueueMany(ids.map((id, i) => ({ id, payload: i })));
  expect(verdicts.every((v) => v.status === 'enqueued')).toBe(true);
  return ids;
}

async function depth(env: ScenarioEnv, q: Queue): Promise<number> {
  return Number(await env.command('ZCARD', q.keys.pending));
}

interface Entry {
  verdict: BatchVerdict;
  outcome: SettleOutcome;
}

const the = <T>(job: T | undefined): T => {
  expect(job).toBeDefined();
  return job as T;
};

export const batches: Scenario[] = [
  {
    no: 62,
    name: 'batch_claim',
    contract: 'from 8 pending, a batch claim of 4 returns exactly the 4 oldest in mint order, each token 1, sharing one active deadline',
    async run(env) {
      const q = await env.queue<number>();
      const ids = await fill(q, 8);
      const batch = await q.claimBatch(4, 30_000);
      expect(batch.map((j) => j.id)).toEqual(ids.slice(0, 4));
      expect(batch.map((j) => j.attempts)).toEqual([1, 1, 1, 1]);
      expect(batch.map((j) => j.payload)).toEqual([0, 1, 2, 3]);
      const deadlines = await Promise.all(batch.map((j) => zscore(env, q.keys.active, j.id)));
      expect(new Set(deadlines).size).toBe(1);
      expect(deadlines[0]).not.toBeNull();
      expect(await depth(env, q)).toBe(4);
    },
  },
  {
    no: 63,
    name: 'batch_claim_short',
    contract: 'with M < N pending, asking N returns M; an empty pending returns empty; a paused queue returns empty and leaves pending unchanged',
    async run(env) {
      const q = await env.queue<number>();
      const ids = await fill(q, 3);
      const short = await q.claimBatch(5, 30_000);
      expect(short.map((j) => j.id)).toEqual(ids);
      expect(await q.claimBatch(5, 30_000)).toEqual([]);
      expect(await env.command('ZCARD', q.keys.active)).toBe(3);
      const waiting = await fill(q, 2);
      await q.pause();
      expect(await q.claimBatch(5, 30_000)).toEqual([]);
      expect(await env.command('ZRANGE', q.keys.pending, 0, -1)).toEqual(waiting);
    },
  },
  {
    no: 64,
    name: 'batch_partial_failure',
    contract: 'one batch member retried (scheduled, last_error kept), the others complete; after promote a new batch holds only it, token 2',
    async run(env) {
      const q = await env.queue<number>();
      const [a, b, c] = await fill(q, 3);
      const batch = await q.claimBatch(3, 30_000);
      expect(batch).toHaveLength(3);
      for (const job of batch) {
        if (job.id === b) expect(await q.retry(job, 10, 3, 'member b failed')).toBe('scheduled');
        else await q.complete(job);
      }
      expect(await hgetall(env, q.keys.job(b as JobId))).toMatchObject({ state: 'scheduled', last_error: 'member b failed' });
      expect(await env.command('EXISTS', q.keys.job(a as JobId), q.keys.job(c as JobId))).toBe(0);
      await sleep(30);
      expect(await q.promote()).toBe(1);
      const again = await q.claimBatch(3, 30_000);
      expect(again.map((j) => [j.id, j.attempts])).toEqual([[b, 2]]);
    },
  },
  {
    no: 65,
    name: 'batch_shaping_floor',
    contract: 'once pending reaches minSize the shaper decides flush(depth) and one batch of at least minSize is claimed and settled',
    async run(env) {
      for (const [d, elapsed, min, timeout, expected] of SHAPING_VECTORS) expect(decideBatch(d, elapsed, min, timeout)).toEqual(expected);
      expect(() => decideBatch(1, 0, 0, 10)).toThrow(InvalidArgumentError);
      expect(() => decideBatch(1, 0, 10, 0)).toThrow(InvalidArgumentError);
      const q = await env.queue<number>();
      const minSize = 4;
      await fill(q, minSize - 1);
      expect(decideBatch(await depth(env, q), 0, minSize, 10_000)).toEqual({ action: 'wait' });
      await fill(q, 1);
      const decision = decideBatch(await depth(env, q), 0, minSize, 10_000);
      expect(decision).toEqual({ action: 'flush', size: minSize });
      const batch = await q.claimBatch(decision.action === 'flush' ? decision.size : 1, 30_000);
      expect(batch.length).toBeGreaterThanOrEqual(minSize);
      for (const job of batch) await q.complete(job);
      expect(await q.counts('pending', 'active', 'completed')).toEqual({ pending: 0, active: 0, completed: minSize });
    },
  },
  {
    no: 66,
    name: 'batch_shaping_timeout',
    contract: 'with an injected clock: M < minSize at the timeout flushes M; before the timeout waits; depth 0 at the timeout waits',
    async run(env) {
      const q = await env.queue<number>();
      const clock = { now: 1_000 };
      const since = clock.now;
      const [minSize, timeoutMs] = [10, 200];
      expect(decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs)).toEqual({ action: 'wait' });
      clock.now += timeoutMs;
      expect(decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs)).toEqual({ action: 'wait' });
      const ids = await fill(q, 3);
      clock.now = since + timeoutMs - 1;
      expect(decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs)).toEqual({ action: 'wait' });
      clock.now = since + timeoutMs;
      const decision = decideBatch(await depth(env, q), clock.now - since, minSize, timeoutMs);
      expect(decision).toEqual({ action: 'flush', size: 3 });
      const batch = await q.claimBatch(decision.action === 'flush' ? decision.size : 1, 30_000);
      expect(batch.map((j) => j.id)).toEqual(ids);
    },
  },
  {
    no: 67,
    name: 'batch_shaping_partial_failure',
    contract: 'batch verdicts fail one member (retried, last_error kept) and complete the others; a member missing a verdict is retried; each publishes its own event',
    async run(env) {
      const q = await env.queue<number>();
      const [ok1, bad, missing, ok2] = await fill(q, 4);
      const events = await q.events();
      const seen: LifecycleEvent[] = [];
      events.on((e) => seen.push(e));
      const partitions: BatchPartition<JobId>[] = [];
      const worker = await BatchWorker.start(
        q,
        (jobs) => new Map<string, BatchVerdict>(jobs.filter((j) => j.id !== missing).map((j) => [j.id, j.id === bad ? { error: 'bad member' } : 'ok'])),
        { shape: { minSize: 4, timeoutMs: 5_000 }, backoff: fixed(60_000), maintenanceMs: 0, blockMs: 50, onBatch: (p) => partitions.push(p) },
      );
      try {
        await until(() => partitions.length > 0 && seen.length >= 4, 'the batch to settle and publish');
      } finally {
        await worker.close();
        await events.close();
      }
      expect(partitions[0]).toEqual({ completed: [ok1, ok2], retried: [bad, missing], dead: [], delayed: [] });
      expect(await hgetall(env, q.keys.job(bad as JobId))).toMatchObject({ state: 'scheduled', last_error: 'bad member' });
      expect(await hgetall(env, q.keys.job(missing as JobId))).toMatchObject({ state: 'scheduled', last_error: 'missing verdict' });
      expect(await env.command('EXISTS', q.keys.job(ok1 as JobId), q.keys.job(ok2 as JobId))).toBe(0);
      const byJob = new Map(seen.map((e) => [e.job, e]));
      expect(byJob.get(ok1 as JobId)).toMatchObject({ event: 'completed' });
      expect(byJob.get(ok2 as JobId)).toMatchObject({ event: 'completed' });
      expect(byJob.get(bad as JobId)).toMatchObject({ event: 'failed', fields: { outcome: 'scheduled' } });
      expect(byJob.get(missing as JobId)).toMatchObject({ event: 'failed', fields: { outcome: 'scheduled' } });
    },
  },
  {
    no: 71,
    name: 'batch_partition',
    contract: 'a mixed batch (completed, retried, retried past the cap, delayed) partitions every id exactly once; dead comes from the retry outcome; no verdict counts as retried',
    async run(env) {
      const [a, b, c, d] = ['a', 'b', 'c', 'd'];
      const vector = new Map<string, Entry>([
        [a, { verdict: 'ok', outcome: 'ok' }],
        [b, { verdict: { error: 'x' }, outcome: 'scheduled' }],
        [c, { verdict: { error: 'x' }, outcome: 'dead' }],
        [d, { verdict: { delay: 10 }, outcome: 'ok' }],
      ]);
      expect(partitionBatch([a, b, c, d], vector)).toEqual({ completed: [a], retried: [b], dead: [c], delayed: [d] });
      expect(partitionBatch([a, b], new Map([[a, { verdict: 'ok', outcome: 'ok' }]]))).toEqual({ completed: [a], retried: [b], dead: [], delayed: [] });
      const odd = new Map<string, Entry>([[a, { verdict: 'ok', outcome: 'stale' }], [b, { verdict: { delay: 5 }, outcome: 'gone' }]]);
      expect(partitionBatch([a, b], odd)).toEqual({ completed: [], retried: [a, b], dead: [], delayed: [] });

      const q = await env.queue<number>();
      await fill(q, 4);
      const batch = await q.claimBatch(4, 30_000);
      const [done, again, dying, later] = batch as [ClaimedJob<number>, ClaimedJob<number>, ClaimedJob<number>, ClaimedJob<number>];
      const settled = new Map<JobId, Entry>();
      await q.complete(done);
      settled.set(done.id, { verdict: 'ok', outcome: 'ok' });
      settled.set(again.id, { verdict: { error: 'e' }, outcome: await q.retry(again, 60_000, 3, 'e') });
      settled.set(dying.id, { verdict: { error: 'e' }, outcome: await q.retry(dying, 0, 1, 'e') });
      await q.delay(later, 60_000);
      settled.set(later.id, { verdict: { delay: 60_000 }, outcome: 'ok' });
      const part = partitionBatch(batch.map((j) => j.id), settled);
      expect(part).toEqual({ completed: [done.id], retried: [again.id], dead: [dying.id], delayed: [later.id] });
      expect(Object.values(part).flat().sort()).toEqual(batch.map((j) => j.id).sort());
      expect(await setsHolding(env, q, dying.id)).toEqual(['dead']);
      expect(await setsHolding(env, q, again.id)).toEqual(['schedule']);
      expect(await setsHolding(env, q, later.id)).toEqual(['schedule']);
    },
  },
  {
    no: 72,
    name: 'batch_delay',
    contract: 'delaying an active member moves it to schedule (state=scheduled, attempts kept, gone from active), unclaimable until due; after promote the claim gets the next token',
    async run(env) {
      const q = await env.queue<number>();
      const [id] = await fill(q, 1);
      const [job] = await q.claimBatch(2, 30_000);
      await q.delay(the(job), 250);
      expect(await hgetall(env, q.keys.job(id as JobId))).toEqual({ state: 'scheduled', attempts: '1', payload: '0' });
      expect(await setsHolding(env, q, id as JobId)).toEqual(['schedule']);
      expect(await q.claimBatch(2, 30_000)).toEqual([]);
      expect(await q.promote()).toBe(0);
      await sleep(300);
      expect(await q.promote()).toBe(1);
      const [next] = await q.claimBatch(2, 30_000);
      expect(next?.id).toBe(id);
      expect(next?.attempts).toBe(2);
    },
  },
  {
    no: 73,
    name: 'batch_delay_stale',
    contract: 'after a reap and re-claim the first holder\'s delay gives stale and the new lease is untouched; the new holder\'s delay succeeds; a missing row gives gone',
    async run(env) {
      const q = await env.queue<number>();
      const [id] = await fill(q, 1);
      const [first] = await q.claimBatch(1, 30);
      await sleep(60);
      expect(await q.reap()).toBe(1);
      const [second] = await q.claimBatch(1, 30_000);
      expect(second?.attempts).toBe(2);
      const lease = await zscore(env, q.keys.active, id as JobId);
      const error = await rejection(q.delay(the(first), 1_000));
      expectError(error, StaleError);
      expect(error).not.toBeInstanceOf(GoneError);
      expect(await zscore(env, q.keys.active, id as JobId)).toBe(lease);
      expect(await env.command('HGET', q.keys.job(id as JobId), 'state')).toBe('active');
      await q.delay(the(second), 1_000);
      expect(await hgetall(env, q.keys.job(id as JobId))).toMatchObject({ state: 'scheduled', attempts: '2' });
      expectError(await rejection(q.delay({ id: mintId('JOB'), attempts: 1 }, 1_000)), GoneError);
    },
  },
  {
    name: 'ts_complete_cleans',
    contract: 'completing, with the still-matching token, a job a retry put in schedule (or dead) leaves the id in neither schedule nor dead',
    async run(env) {
      const q = await env.queue<number>();
      const [scheduled, dead] = await fill(q, 2);
      const [s, d] = await q.claimBatch(2, 30_000);
      expect(await q.retry(the(s), 60_000, 3, 'later')).toBe('scheduled');
      expect(await q.retry(the(d), 0, 1, 'dead')).toBe('dead');
      expect(await setsHolding(env, q, scheduled as JobId)).toEqual(['schedule']);
      expect(await setsHolding(env, q, dead as JobId)).toEqual(['dead']);
      await q.complete(the(s));
      await q.complete(the(d));
      for (const id of [scheduled, dead] as JobId[]) {
        expect(await setsHolding(env, q, id)).toEqual([]);
        expect(await env.command('EXISTS', q.keys.job(id))).toBe(0);
      }
      expect(await q.promote()).toBe(0);
      expect(await q.counts('completed', 'schedule', 'dead')).toEqual({ completed: 2, schedule: 0, dead: 0 });
    },
  },
];
