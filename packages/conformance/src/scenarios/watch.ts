/** D. Watch plane (33–37) and E. Parity closer (38–43). */
import assert from 'node:assert/strict';
import { GoneError, StaleError, emitHook, hooks, onHook, type JobCompleteEvent } from '@echo/protocol/extend';
import { CancelledError, CancelToken } from '@echo/queue';
import type { Scenario } from '../scenario.js';
import { assertError, count, hgetall, present, rejection, setsHolding, sleep, thrown, until, zscore } from '../support.js';

export const watchPlane: Scenario[] = [
  {
    no: 33,
    name: 'lock_extend',
    family: 'watch',
    contract: 'a 50 ms lease extended to 60 s survives a reap after 120 ms; a wrong token gives stale, an unknown id gives gone',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('e');
      const held = present(await q.leases().claim(50), 'a claimed job');
      const shortDeadline = present(await zscore(env, q.keys.active, id), 'the lease deadline');
      await q.leases().extendLock(held, 60_000);
      assert.ok(present(await zscore(env, q.keys.active, id), 'the new deadline') > shortDeadline + 50_000, 'the lease was pushed out');
      await sleep(120);
      assert.equal(await q.maintenance().reap(), 0);
      assert.equal(await q.getState(id), 'active');
      assertError(await rejection(q.leases().extendLock({ id, attempts: 2 }, 60_000)), StaleError);
      assertError(await rejection(q.leases().extendLock({ id: env.mintId('JOB'), attempts: 1 }, 60_000)), GoneError);
    },
  },
  {
    no: 34,
    name: 'stalled',
    family: 'watch',
    contract: 'with maxStalled=2 the first lapse is recovered (jobStalled true), re-claim gets token 2, the second lapse dead-letters with last_error "stalled"',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('s');
      present(await q.leases().claim(30), 'a claimed job');
      await sleep(60);
      const first = await q.maintenance().sweepStalled({ maxStalled: 2 });
      assert.deepEqual([[...first.recovered], [...first.dead]], [[id], []]);
      assert.equal((await q.getJob(id))?.stalled, 1);
      const row = await hgetall(env, q.keys.job(id));
      assert.deepEqual([row.state, row.stalled], ['pending', '1']);
      assert.equal((await q.leases().claim(30))?.attempts, 2);
      await sleep(60);
      const second = await q.maintenance().sweepStalled({ maxStalled: 2 });
      assert.deepEqual([[...second.recovered], [...second.dead]], [[], [id]]);
      const dead = await hgetall(env, q.keys.job(id));
      assert.deepEqual([dead.state, dead.last_error, dead.stalled], ['dead', 'stalled', '2']);
      assert.deepEqual(await setsHolding(env, q, id), ['dead']);
    },
  },
  {
    no: 35,
    name: 'events',
    family: 'watch',
    contract: 'a completed publish sent after a real complete reaches a subscriber listening first; the event reads completed',
    async run(env) {
      const q = await env.queue();
      const events = await env.events(q);
      const worker = await env.startWorker(q, () => 'done', { blockMs: 50 });
      // Listening before the enqueue: the queue is this scenario's own, so its first completion is this job's.
      const completed = events.next((e) => e.event === 'completed', 5000);
      const { id } = await q.enqueue('go');
      const event = await completed;
      await worker.close();
      // [TS] The event carries the handler's result (queue.md §12 lists no field; the name is the contract).
      assert.deepEqual(event, { event: 'completed', job: id, fields: { result: 'done' } });
      assert.equal(await count(env, 'EXISTS', q.keys.job(id)), 0);
      assert.equal(await env.command('HGET', q.keys.metricsCompleted, 'count'), '1');
    },
  },
  {
    no: 36,
    name: 'telemetry',
    family: 'watch',
    contract: 'a listener on the emq.job.complete hook receives duration and job id; with no hook, emitting costs nothing',
    // The TS hook is the diagnostics channel `emq.job.complete`; other scenarios may run beside
    // this one in the process, so the listener keeps only this queue's events.
    async run(env) {
      const q = await env.queue();
      const heard: JobCompleteEvent[] = [];
      const off = onHook('emq.job.complete', (event) => {
        if (event.queue === q.name) heard.push(event);
      });
      env.defer(off);
      const worker = await env.startWorker(q, () => 'done', { blockMs: 50 });
      const { id } = await q.enqueue('t');
      await until(() => heard.length === 1, 'the emq.job.complete hook to fire');
      const [real] = heard;
      assert.deepEqual([real?.jobId, real?.attempt, real?.queue], [id, 1, q.name]);
      assert.ok((real?.durationMs ?? -1) >= 0, 'the hook carries a duration');
      // The payload reaches the listener as emitted: a measured 1234 ms reads back 1234.
      hooks.job.complete.publish({ queue: q.name, jobId: id, attempt: 1, durationMs: 1234 });
      assert.deepEqual(heard[1], { queue: q.name, jobId: id, attempt: 1, durationMs: 1234 });
      off();
      // No listener: the payload is never built, and a real completion reaches nobody.
      if (!hooks.job.complete.hasSubscribers) {
        let built = false;
        emitHook(hooks.job.complete, () => {
          built = true;
          return { queue: q.name, jobId: id, attempt: 1, durationMs: 0 };
        });
        assert.equal(built, false, 'with no hook the payload is not built');
      }
      await q.enqueue('u');
      await until(async () => (await env.command('HGET', q.keys.metricsCompleted, 'count')) === '2', 'the second completion');
      await worker.close();
      assert.equal(heard.length, 2, 'a detached listener hears nothing');
    },
  },
  {
    no: 37,
    name: 'cancel',
    family: 'watch',
    contract: 'a new token checks ok; after cancel(reason) check returns cancelled(reason); a second cancel makes checkOrThrow throw that reason',
    // Pure: the verdicts come from the host token; no wire I/O.
    run() {
      const token = new CancelToken();
      assert.deepEqual(token.check(), { cancelled: false });
      assert.equal(token.signal.aborted, false);
      token.throwIfCancelled();
      token.cancel('shutdown');
      assert.deepEqual(token.check(), { cancelled: true, reason: 'shutdown' });
      assert.equal(token.signal.aborted, true);
      token.cancel('shutdown');
      const error = thrown(() => token.throwIfCancelled());
      assertError(error, CancelledError, { reason: 'shutdown' });
      return Promise.resolve();
    },
  },
];

export const parityCloser: Scenario[] = [
  {
    no: 38,
    name: 'unknown_state',
    family: 'parity',
    contract: 'a claimed job ZREMed from active reads unknown while its row still says active; a missing id reads absent',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('u');
      present(await q.leases().claim(30_000), 'a claimed job');
      assert.equal(await count(env, 'ZREM', q.keys.active, id), 1);
      assert.equal(await q.getState(id), 'unknown');
      assert.equal(await env.command('HGET', q.keys.job(id), 'state'), 'active');
      assert.equal(await q.getState(env.mintId('JOB')), 'absent');
    },
  },
  {
    no: 39,
    name: 'rate_consult',
    family: 'parity',
    contract: 'with concurrency 1 and one job held, a claimer asking isMaxed first skips; active 1, pending 1; after complete isMaxed is ok',
    async run(env) {
      const q = await env.queue();
      await env.command('HSET', q.keys.meta, 'concurrency', '1');
      await q.enqueue('held');
      await q.enqueue('waiting');
      const held = present(await q.leases().claim(30_000), 'the held job');
      const consult = async (): Promise<boolean> => {
        if (await q.isMaxed()) return false;
        return (await q.leases().claim(30_000)) !== undefined;
      };
      assert.equal(await consult(), false);
      assert.deepEqual({ ...(await q.counts('active', 'pending')) }, { active: 1, pending: 1 });
      await q.leases().complete(held);
      assert.equal(await q.isMaxed(), false);
      assert.equal(await consult(), true);
      assert.deepEqual({ ...(await q.counts('active', 'pending')) }, { active: 1, pending: 0 });
    },
  },
  {
    no: 40,
    name: 'dedup_release',
    family: 'parity',
    contract: 'removeJob with the did deletes a de key naming this job; an orphan de key naming another id is left in place',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('mine', { dedupId: 'did-mine' });
      assert.equal(await env.command('GET', q.keys.dedup('did-mine')), id);
      await q.remove(id, { dedupId: 'did-mine' });
      assert.equal(await count(env, 'EXISTS', q.keys.dedup('did-mine')), 0);
      const other = env.mintId('JOB');
      await env.command('SET', q.keys.dedup('did-orphan'), other);
      const { id: second } = await q.enqueue('second');
      await q.remove(second, { dedupId: 'did-orphan' });
      assert.equal(await q.getState(second), 'absent');
      assert.equal(await env.command('GET', q.keys.dedup('did-orphan')), other);
    },
  },
  {
    no: 41,
    name: 'extend_locks_batch',
    family: 'parity',
    contract: 'a batch extension of [live, stale token, unknown id] returns exactly {stale, unknown}; the live job is extended',
    async run(env) {
      const q = await env.queue();
      await q.enqueue('live');
      await q.enqueue('stale');
      const live = present(await q.leases().claim(1_000), 'the live job');
      const other = present(await q.leases().claim(1_000), 'the other job');
      const unknown = env.mintId('JOB');
      const before = present(await zscore(env, q.keys.active, live.id), 'the live deadline');
      const missed = await q.leases().extendLocks([live, { id: other.id, attempts: 7 }, { id: unknown, attempts: 1 }], 60_000);
      assert.deepEqual([...missed], [other.id, unknown]);
      assert.ok(present(await zscore(env, q.keys.active, live.id), 'the live deadline') > before + 50_000, 'the live lease was extended');
      assert.ok(present(await zscore(env, q.keys.active, other.id), 'the stale deadline') < before + 50_000, 'the stale lease was not');
    },
  },
  {
    no: 42,
    name: 'stalled_group',
    family: 'parity',
    contract: 'a lapsed lane job is recovered into its own lane, not flat pending; a lane claim returns it with token 2',
    async run(env) {
      const q = await env.queue();
      const g = env.mintId('PRT');
      const { id } = await q.enqueueInLane(g, 'lane');
      assert.equal((await q.leases().laneClaim(30))?.id, id);
      await sleep(60);
      const swept = await q.maintenance().sweepStalled({ maxStalled: 2 });
      assert.deepEqual([[...swept.recovered], [...swept.dead]], [[id], []]);
      assert.equal(await zscore(env, q.keys.lane(g), id), 0);
      assert.equal(await zscore(env, q.keys.pending, id), null);
      assert.equal(await count(env, 'HEXISTS', q.keys.gactive, g), 0);
      const again = present(await q.leases().laneClaim(30_000), 'the lane re-claim');
      assert.deepEqual([again.id, again.group, again.attempts], [id, g, 2]);
    },
  },
  {
    no: 43,
    name: 'obliterate_grouped',
    family: 'parity',
    contract: "obliterating a paused queue deletes a lane job's row and its lane; afterwards no key matches emq:{q}:*",
    async run(env) {
      const q = await env.queue();
      const g = env.mintId('PRT');
      const { id } = await q.enqueueInLane(g, 'lane');
      const ids = [id, (await q.enqueueInLane(g, 'lane-2')).id];
      await q.addLog(id, 'kept until obliterate');
      await q.pause();
      assert.ok((await env.scanKeys(`emq:{${q.name}}:*`)).length > 3, 'the queue has keys before');
      await q.obliterate();
      for (const jid of ids) assert.equal(await count(env, 'EXISTS', q.keys.job(jid)), 0);
      assert.equal(await count(env, 'EXISTS', q.keys.lane(g), q.keys.ring, q.keys.meta, q.keys.jobSub(id, 'logs')), 0);
      assert.deepEqual(await env.scanKeys(`emq:{${q.name}}:*`), []);
    },
  },
];
