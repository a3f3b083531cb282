/** B. Read plane (19–24) and C. Operator plane (25–32). */
import { expect } from 'vitest';
import { GoneError, LockedError, mintId, RateError, scripts, StateError, UnknownStateError, type LifecycleEvent } from '@echo/protocol';
import type { CountName } from '../../src/index.js';
import { expectError, hgetall, rejection, setsHolding, until, zscore, type Scenario } from './harness.js';

export const readPlane: Scenario[] = [
  {
    no: 19,
    name: 'counts',
    contract: 'with 1 active, 3 pending and 1 scheduled: pending 3, active 1, schedule 1, dead 0; the name wait gives UnknownStateError',
    async run(env) {
      const q = await env.queue<number>();
      for (let n = 0; n < 4; n++) await q.enqueue(n);
      expect(await q.claim(30_000)).toBeDefined();
      await q.enqueue(9, { delayMs: 60_000 });
      expect(await q.counts('pending', 'active', 'schedule', 'dead')).toEqual({ pending: 3, active: 1, schedule: 1, dead: 0 });
      const sent = env.conn.stats().commands;
      expectError(await rejection(q.counts('wait' as CountName)), UnknownStateError);
      expect(env.conn.stats().commands).toBe(sent);
    },
  },
  {
    no: 20,
    name: 'state',
    contract: 'state is answered by the set holding the id (active, scheduled; absent when missing); getJob returns the active row, absent when missing',
    async run(env) {
      const q = await env.queue<string>();
      const { id: active } = await q.enqueue('a');
      await q.claim(30_000);
      const { id: scheduled } = await q.enqueue('s', { delayMs: 60_000 });
      const missing = mintId('JOB');
      expect(await q.getState(active)).toBe('active');
      expect(await q.getState(scheduled)).toBe('scheduled');
      expect(await q.getState(missing)).toBe('absent');
      const row = await q.getJob(active);
      expect(row).toMatchObject({ id: active, state: 'active', attempts: 1, payload: 'a' });
      expect(await hgetall(env, q.keys.job(active))).toMatchObject({ state: 'active', attempts: '1' });
      expect(await q.getJob(missing)).toBeUndefined();
    },
  },
  {
    no: 21,
    name: 'metrics',
    contract: 'completed is {0, 0} before and {1, 0} after one complete; data points stay 0',
    async run(env) {
      const q = await env.queue<string>();
      await q.enqueue('m');
      expect(await q.getMetrics('completed')).toEqual({ count: 0, dataPoints: 0 });
      const job = await q.claim(30_000);
      await q.complete(job as NonNullable<typeof job>);
      expect(await q.getMetrics('completed')).toEqual({ count: 1, dataPoints: 0 });
      expect(await q.getMetrics('failed')).toEqual({ count: 0, dataPoints: 0 });
      expect(await env.command('EXISTS', q.keys.metricsCompletedData, q.keys.metricsFailedData, q.keys.metricsFailed)).toBe(0);
    },
  },
  {
    no: 22,
    name: 'dedup',
    contract: 'a de:<did> key set with a raw SET reads back the same id; a did never set reads absent',
    async run(env) {
      const q = await env.queue();
      const id = mintId('JOB');
      await env.command('SET', q.keys.dedup('order-22'), id);
      expect(await q.getDedupJobId('order-22')).toBe(id);
      expect(await q.getDedupJobId('never-set')).toBeUndefined();
    },
  },
  {
    no: 23,
    name: 'rate',
    contract: 'with meta.concurrency=1, isMaxed is ok while nothing is active and RateError once one job is claimed',
    async run(env) {
      const q = await env.queue<string>();
      await env.command('HSET', q.keys.meta, 'concurrency', '1');
      await q.enqueue('r');
      expect(await q.isMaxed()).toBe(false);
      expect(await env.conn.run(scripts().is_maxed, [q.keys.meta, q.keys.active])).toBe(0);
      expect(await q.claim(30_000)).toBeDefined();
      expect(await q.isMaxed()).toBe(true);
      const error = await rejection(env.conn.run(scripts().is_maxed, [q.keys.meta, q.keys.active]));
      expectError(error, RateError);
      expect(await env.command('ZCARD', q.keys.active)).toBe(1);
    },
  },
  {
    no: 24,
    name: 'lane_depth',
    contract: 'each lane\'s depth is counted separately, e.g. {a: 2, b: 1}',
    async run(env) {
      const q = await env.queue<string>();
      const [a, b] = [mintId('PRT'), mintId('PRT')];
      const { id } = await q.enqueueInLane(a, 'a1');
      await q.enqueueInLane(a, 'a2');
      await q.enqueueInLane(b, 'b1');
      expect(await q.laneDepths([a, b])).toEqual([2, 1]);
      expect(await q.getState(id)).toBe('pending');
      expect(await env.command('ZCARD', q.keys.lane(a))).toBe(2);
      expect(await env.command('ZCARD', q.keys.lane(b))).toBe(1);
    },
  },
];

export const operatorPlane: Scenario[] = [
  {
    no: 25,
    name: 'queue_pause',
    contract: 'a paused queue claims nothing though pending holds 1 job; after resume the job is claimed with token 1',
    async run(env) {
      const q = await env.queue<string>();
      const { id } = await q.enqueue('p');
      await q.pause();
      expect(await env.command('HEXISTS', q.keys.meta, 'paused')).toBe(1);
      expect(await q.claim(30_000)).toBeUndefined();
      expect(await zscore(env, q.keys.pending, id)).toBe(0);
      await q.resume();
      const job = await q.claim(30_000);
      expect(job?.id).toBe(id);
      expect(job?.attempts).toBe(1);
    },
  },
  {
    no: 26,
    name: 'drain',
    contract: 'drain removes 3 pending jobs with their rows; the active job survives and reads active',
    async run(env) {
      const q = await env.queue<number>();
      const { id: active } = await q.enqueue(0);
      await q.claim(30_000);
      const pending = [];
      for (let n = 1; n <= 3; n++) pending.push((await q.enqueue(n)).id);
      expect(await q.drain()).toBe(3);
      for (const id of pending) expect(await env.command('EXISTS', q.keys.job(id))).toBe(0);
      expect(await env.command('EXISTS', q.keys.pending)).toBe(0);
      expect(await q.getState(active)).toBe('active');
      expect(await env.command('HGET', q.keys.job(active), 'state')).toBe('active');
    },
  },
  {
    no: 27,
    name: 'obliterate',
    contract: 'unpaused, obliterate fails with StateError not paused and changes nothing; paused, it clears all four sets to 0',
    async run(env) {
      const q = await env.queue<string>();
      await q.enqueue('d');
      const dying = await q.claim(30_000);
      expect(await q.retry(dying as NonNullable<typeof dying>, 0, 1, 'x')).toBe('dead');
      await q.enqueue('a');
      expect((await q.claim(30_000))?.payload).toBe('a');
      const { id: pending } = await q.enqueue('p');
      await q.enqueue('s', { delayMs: 60_000 });
      const before = await q.counts('pending', 'active', 'schedule', 'dead');
      expect(before).toEqual({ pending: 1, active: 1, schedule: 1, dead: 1 });
      const refused = await rejection(q.obliterate());
      expectError(refused, StateError);
      expect((refused as StateError).detail).toBe('not paused');
      expect(await q.counts('pending', 'active', 'schedule', 'dead')).toEqual(before);
      expect(await env.command('EXISTS', q.keys.job(pending))).toBe(1);
      await q.pause();
      expect(((await rejection(q.obliterate())) as StateError).detail).toBe('active jobs present');
      await q.obliterate({ force: true });
      expect(await q.counts('pending', 'active', 'schedule', 'dead')).toEqual({ pending: 0, active: 0, schedule: 0, dead: 0 });
      expect(await env.command('EXISTS', q.keys.job(pending), q.keys.meta)).toBe(0);
    },
  },
  {
    no: 28,
    name: 'update_data',
    contract: 'the payload is replaced; a missing job gives gone',
    async run(env) {
      const q = await env.queue<{ v: number }>();
      const { id } = await q.enqueue({ v: 1 });
      await q.updateData(id, { v: 2 });
      expect(await env.command('HGET', q.keys.job(id), 'payload')).toBe('{"v":2}');
      expect((await q.getJob(id))?.payload).toEqual({ v: 2 });
      expectError(await rejection(q.updateData(mintId('JOB'), { v: 3 })), GoneError);
    },
  },
  {
    no: 29,
    name: 'update_progress',
    contract: 'progress is written and a prior subscriber receives {"event":"progress", id, "progress":"50"}; a missing job gives gone',
    async run(env) {
      const q = await env.queue<string>();
      const { id } = await q.enqueue('p');
      const events = await q.events();
      try {
        const seen: LifecycleEvent[] = [];
        events.on((e) => seen.push(e));
        await q.updateProgress(id, 50);
        expect(await env.command('HGET', q.keys.job(id), 'progress')).toBe('50');
        await until(() => seen.length > 0, 'the progress event');
        expect(seen[0]).toEqual({ event: 'progress', job: id, fields: { progress: '50' } });
        const missing = mintId('JOB');
        expectError(await rejection(q.updateProgress(missing, 60)), GoneError);
        expect(await env.command('EXISTS', q.keys.job(missing))).toBe(0);
      } finally {
        await events.close();
      }
    },
  },
  {
    no: 30,
    name: 'job_logs',
    contract: 'appends return 1 then 2; keep=2 returns 2 and the log reads [line-2, line-3]; a missing job gives gone for append and read',
    async run(env) {
      const q = await env.queue<string>();
      const { id } = await q.enqueue('l');
      expect(await q.addLog(id, 'line-1')).toBe(1);
      expect(await q.addLog(id, 'line-2')).toBe(2);
      expect(await q.addLog(id, 'line-3', 2)).toBe(2);
      expect(await q.getLogs(id)).toEqual(['line-2', 'line-3']);
      expect(await env.command('LRANGE', q.keys.jobSub(id, 'logs'), 0, -1)).toEqual(['line-2', 'line-3']);
      const missing = mintId('JOB');
      expectError(await rejection(q.addLog(missing, 'x')), GoneError);
      expectError(await rejection(q.getLogs(missing)), GoneError);
      expect(await env.command('EXISTS', q.keys.jobSub(missing, 'logs'))).toBe(0);
    },
  },
  {
    no: 31,
    name: 'remove_job',
    contract: 'removing an unlocked job with its did deletes it (absent) and releases de; a job with a :lock key fails with LockedError and stays pending',
    async run(env) {
      const q = await env.queue<string>();
      const { id } = await q.enqueue('r', { dedupId: 'did-31' });
      expect(await env.command('GET', q.keys.dedup('did-31'))).toBe(id);
      await q.remove(id, { dedupId: 'did-31' });
      expect(await q.getState(id)).toBe('absent');
      expect(await env.command('EXISTS', q.keys.job(id), q.keys.dedup('did-31'))).toBe(0);
      const { id: locked } = await q.enqueue('held');
      await env.command('SET', q.keys.jobSub(locked, 'lock'), '1');
      expectError(await rejection(q.remove(locked)), LockedError);
      expect(await q.getState(locked)).toBe('pending');
      expect(await hgetall(env, q.keys.job(locked))).toEqual({ state: 'pending', attempts: '0', payload: '"held"' });
    },
  },
  {
    no: 32,
    name: 'reprocess_job',
    contract: 'a dead job moves back to pending with last_error cleared; a pending job fails with StateError not dead, unchanged',
    async run(env) {
      const q = await env.queue<string>();
      const { id } = await q.enqueue('x');
      const job = await q.claim(30_000);
      expect(await q.retry(job as NonNullable<typeof job>, 0, 1, 'boom')).toBe('dead');
      await q.reprocess(id);
      expect(await hgetall(env, q.keys.job(id))).toEqual({ state: 'pending', attempts: '1', payload: '"x"' });
      expect(await setsHolding(env, q, id)).toEqual(['pending']);
      const before = await hgetall(env, q.keys.job(id));
      const error = await rejection(q.reprocess(id));
      expectError(error, StateError);
      expect((error as StateError).detail).toBe('not dead');
      expect(await hgetall(env, q.keys.job(id))).toEqual(before);
      expect((await q.claim(30_000))?.attempts).toBe(2);
    },
  },
];
