/** B. Read plane (19–24) and C. Operator plane (25–32). */
import assert from 'node:assert/strict';
import { GoneError, LockedError, RateError, StateError, UnknownStateError, type JobId, type LifecycleEvent } from '@echo/protocol';
import type { CountName } from '@echo/queue';
import type { Scenario } from '../scenario.js';
import { assertError, assertFields, count, hgetall, lrange, present, rejection, setsHolding, until, zscore } from '../support.js';

export const readPlane: Scenario[] = [
  {
    no: 19,
    name: 'counts',
    family: 'read',
    contract: 'with 1 active, 3 pending and 1 scheduled: pending 3, active 1, scheduled 1 (the schedule set), dead 0; the name wait gives UnknownStateError',
    async run(env) {
      const q = await env.queue();
      for (let n = 0; n < 4; n++) await q.enqueue(n);
      present(await q.leases().claim(30_000), 'a claimed job');
      await q.enqueue(9, { delayMs: 60_000 });
      assert.deepEqual({ ...(await q.counts('pending', 'active', 'scheduled', 'dead')) }, { pending: 3, active: 1, scheduled: 1, dead: 0 });
      const sent = env.stats().commands;
      // A name outside the closed set, as an untyped caller could send it.
      assertError(await rejection(q.counts('wait' as CountName)), UnknownStateError);
      assert.equal(env.stats().commands, sent, 'an unknown state is refused before any wire I/O');
    },
  },
  {
    no: 20,
    name: 'state',
    family: 'read',
    contract: 'state is answered by the set holding the id (active, scheduled; absent when missing); getJob returns the active row, absent when missing',
    async run(env) {
      const q = await env.queue();
      const { id: active } = await q.enqueue('a');
      present(await q.leases().claim(30_000), 'a claimed job');
      const { id: scheduled } = await q.enqueue('s', { delayMs: 60_000 });
      const missing = env.mintId('JOB');
      assert.equal(await q.getState(active), 'active');
      assert.equal(await q.getState(scheduled), 'scheduled');
      assert.equal(await q.getState(missing), 'absent');
      assertFields(await q.getJob(active), { id: active, state: 'active', attempts: 1, payload: 'a' }, 'getJob');
      assertFields(await hgetall(env, q.keys.job(active)), { state: 'active', attempts: '1' }, 'row');
      assert.equal(await q.getJob(missing), undefined);
    },
  },
  {
    no: 21,
    name: 'metrics',
    family: 'read',
    contract: 'completed is {0, 0} before and {1, 0} after one complete; data points stay 0',
    async run(env) {
      const q = await env.queue();
      await q.enqueue('m');
      assert.deepEqual({ ...(await q.getMetrics('completed')) }, { count: 0, dataPoints: 0 });
      await q.leases().complete(present(await q.leases().claim(30_000), 'a claimed job'));
      assert.deepEqual({ ...(await q.getMetrics('completed')) }, { count: 1, dataPoints: 0 });
      assert.deepEqual({ ...(await q.getMetrics('failed')) }, { count: 0, dataPoints: 0 });
      assert.equal(await count(env, 'EXISTS', q.keys.metricsCompletedData, q.keys.metricsFailedData, q.keys.metricsFailed), 0);
    },
  },
  {
    no: 22,
    name: 'dedup',
    family: 'read',
    contract: 'a de:<did> key set with a raw SET reads back the same id; a did never set reads absent',
    async run(env) {
      const q = await env.queue();
      const id = env.mintId('JOB');
      await env.command('SET', q.keys.dedup('order-22'), id);
      assert.equal(await q.getDedupJobId('order-22'), id);
      assert.equal(await q.getDedupJobId('never-set'), undefined);
    },
  },
  {
    no: 23,
    name: 'rate',
    family: 'read',
    contract: 'with meta.concurrency=1, isMaxed is ok while nothing is active and RateError once one job is claimed',
    async run(env) {
      const q = await env.queue();
      await env.command('HSET', q.keys.meta, 'concurrency', '1');
      await q.enqueue('r');
      assert.equal(await q.isMaxed(), false);
      assert.equal(await env.run('is_maxed', [q.keys.meta, q.keys.active]), 0);
      present(await q.leases().claim(30_000), 'a claimed job');
      assert.equal(await q.isMaxed(), true);
      assertError(await rejection(env.run('is_maxed', [q.keys.meta, q.keys.active])), RateError, { errorClass: 'EMQRATE' });
      assert.equal(await count(env, 'ZCARD', q.keys.active), 1);
    },
  },
  {
    no: 24,
    name: 'lane_depth',
    family: 'read',
    contract: "each lane's depth is counted separately, e.g. {a: 2, b: 1}",
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      const { id } = await q.enqueueInLane(a, 'a1');
      await q.enqueueInLane(a, 'a2');
      await q.enqueueInLane(b, 'b1');
      assert.deepEqual([...(await q.laneDepths([a, b]))], [2, 1]);
      assert.equal(await q.getState(id), 'pending');
      assert.equal(await count(env, 'ZCARD', q.keys.lane(a)), 2);
      assert.equal(await count(env, 'ZCARD', q.keys.lane(b)), 1);
    },
  },
];

export const operatorPlane: Scenario[] = [
  {
    no: 25,
    name: 'queue_pause',
    family: 'operator',
    contract: 'a paused queue claims nothing though pending holds 1 job; after resume the job is claimed with token 1',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('p');
      await q.pause();
      assert.equal(await count(env, 'HEXISTS', q.keys.meta, 'paused'), 1);
      assert.equal(await q.leases().claim(30_000), undefined);
      assert.equal(await zscore(env, q.keys.pending, id), 0);
      await q.resume();
      const job = present(await q.leases().claim(30_000), 'the claim after resume');
      assert.equal(job.id, id);
      assert.equal(job.attempts, 1);
    },
  },
  {
    no: 26,
    name: 'drain',
    family: 'operator',
    contract: 'drain removes 3 pending jobs with their rows; the active job survives and reads active',
    async run(env) {
      const q = await env.queue();
      const { id: active } = await q.enqueue(0);
      present(await q.leases().claim(30_000), 'a claimed job');
      const pending: JobId[] = [];
      for (let n = 1; n <= 3; n++) pending.push((await q.enqueue(n)).id);
      assert.equal(await q.drain(), 3);
      for (const id of pending) assert.equal(await count(env, 'EXISTS', q.keys.job(id)), 0);
      assert.equal(await count(env, 'EXISTS', q.keys.pending), 0);
      assert.equal(await q.getState(active), 'active');
      assert.equal(await env.command('HGET', q.keys.job(active), 'state'), 'active');
    },
  },
  {
    no: 27,
    name: 'obliterate',
    family: 'operator',
    contract: 'unpaused, obliterate fails with StateError not paused and changes nothing; paused, it clears all four sets to 0',
    async run(env) {
      const q = await env.queue();
      await q.enqueue('d');
      assert.equal(await q.leases().retry(present(await q.leases().claim(30_000), 'a claimed job'), 0, 1, 'x'), 'dead');
      await q.enqueue('a');
      assert.equal((await q.leases().claim(30_000))?.payload, 'a');
      const { id: pending } = await q.enqueue('p');
      await q.enqueue('s', { delayMs: 60_000 });
      const sets: CountName[] = ['pending', 'active', 'scheduled', 'dead'];
      const before = { ...(await q.counts(...sets)) };
      assert.deepEqual(before, { pending: 1, active: 1, scheduled: 1, dead: 1 });
      assertError(await rejection(q.obliterate()), StateError, { errorClass: 'EMQSTATE', detail: 'not paused' });
      assert.deepEqual({ ...(await q.counts(...sets)) }, before);
      assert.equal(await count(env, 'EXISTS', q.keys.job(pending)), 1);
      await q.pause();
      assertError(await rejection(q.obliterate()), StateError, { detail: 'active jobs present' });
      await q.obliterate({ force: true });
      assert.deepEqual({ ...(await q.counts(...sets)) }, { pending: 0, active: 0, scheduled: 0, dead: 0 });
      assert.equal(await count(env, 'EXISTS', q.keys.job(pending), q.keys.meta), 0);
    },
  },
  {
    no: 28,
    name: 'update_data',
    family: 'operator',
    contract: 'the payload is replaced; a missing job gives gone',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue({ v: 1 });
      await q.updateData(id, { v: 2 });
      assert.equal(await env.command('HGET', q.keys.job(id), 'payload'), q.codec.encode({ v: 2 }));
      assert.deepEqual((await q.getJob(id))?.payload, { v: 2 });
      assertError(await rejection(q.updateData(env.mintId('JOB'), { v: 3 })), GoneError, { errorClass: 'EMQSTALE' });
    },
  },
  {
    no: 29,
    name: 'update_progress',
    family: 'operator',
    contract: 'progress is written and a prior subscriber receives {"event":"progress", id, "progress":"50"}; a missing job gives gone',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('p');
      const events = await env.events(q);
      const seen: LifecycleEvent[] = [];
      events.on((e) => seen.push(e));
      await q.updateProgress(id, 50);
      assert.equal(await env.command('HGET', q.keys.job(id), 'progress'), '50');
      await until(() => seen.length > 0, 'the progress event');
      assert.deepEqual(seen[0], { event: 'progress', job: id, fields: { progress: '50' } });
      const missing = env.mintId('JOB');
      assertError(await rejection(q.updateProgress(missing, 60)), GoneError);
      assert.equal(await count(env, 'EXISTS', q.keys.job(missing)), 0);
    },
  },
  {
    no: 30,
    name: 'job_logs',
    family: 'operator',
    contract: 'appends return 1 then 2; keep=2 returns 2 and the log reads [line-2, line-3]; a missing job gives gone for append and read',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('l');
      assert.equal(await q.addLog(id, 'line-1'), 1);
      assert.equal(await q.addLog(id, 'line-2'), 2);
      assert.equal(await q.addLog(id, 'line-3', 2), 2);
      assert.deepEqual([...(await q.getLogs(id))], ['line-2', 'line-3']);
      assert.deepEqual(await lrange(env, q.keys.jobSub(id, 'logs')), ['line-2', 'line-3']);
      const missing = env.mintId('JOB');
      assertError(await rejection(q.addLog(missing, 'x')), GoneError);
      assertError(await rejection(q.getLogs(missing)), GoneError);
      assert.equal(await count(env, 'EXISTS', q.keys.jobSub(missing, 'logs')), 0);
    },
  },
  {
    no: 31,
    name: 'remove_job',
    family: 'operator',
    contract: 'removing an unlocked job with its did deletes it (absent) and releases de; a job with a :lock key fails with LockedError and stays pending',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('r', { dedupId: 'did-31' });
      assert.equal(await env.command('GET', q.keys.dedup('did-31')), id);
      await q.remove(id, { dedupId: 'did-31' });
      assert.equal(await q.getState(id), 'absent');
      assert.equal(await count(env, 'EXISTS', q.keys.job(id), q.keys.dedup('did-31')), 0);
      const { id: locked } = await q.enqueue('held');
      await env.command('SET', q.keys.jobSub(locked, 'lock'), '1');
      assertError(await rejection(q.remove(locked)), LockedError, { errorClass: 'EMQLOCK' });
      assert.equal(await q.getState(locked), 'pending');
      assert.deepEqual(await hgetall(env, q.keys.job(locked)), { state: 'pending', attempts: '0', payload: q.codec.encode('held') });
    },
  },
  {
    no: 32,
    name: 'reprocess_job',
    family: 'operator',
    contract: 'a dead job moves back to pending with last_error cleared; a pending job fails with StateError not dead, unchanged',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('x');
      assert.equal(await q.leases().retry(present(await q.leases().claim(30_000), 'a claimed job'), 0, 1, 'boom'), 'dead');
      await q.reprocess(id);
      const row = await hgetall(env, q.keys.job(id));
      assert.deepEqual(row, { state: 'pending', attempts: '1', payload: q.codec.encode('x') });
      assert.deepEqual(await setsHolding(env, q, id), ['pending']);
      assertError(await rejection(q.reprocess(id)), StateError, { detail: 'not dead' });
      assert.deepEqual(await hgetall(env, q.keys.job(id)), row);
      assert.equal((await q.leases().claim(30_000))?.attempts, 2);
    },
  },
];
