/** A. The state machine, scenarios 1–11: admission, claim, settlement and recovery of one flat job. */
import assert from 'node:assert/strict';
import { FENCE_KEY, KindError, StaleError } from '@echo/protocol/extend';
import type { Scenario } from '../scenario.js';
import { assertError, assertFields, count, hgetall, present, rejection, setsHolding, sleep, zscore } from '../support.js';

/** The wire version this suite judges (conformance.md scenario 1), whatever the build under test claims. */
const JUDGED_WIRE_VERSION = 'echomq:3.0.0';

export const stateMachine: Scenario[] = [
  {
    no: 1,
    name: 'fence',
    family: 'state',
    contract: "GET {emq}:version is this build's wire version echomq:3.0.0, claimed at connect before any work",
    async run(env) {
      assert.equal(await env.command('GET', FENCE_KEY), JUDGED_WIRE_VERSION);
      assert.ok(env.stats().fences >= 1, 'the connection fenced before it was handed out');
    },
  },
  {
    no: 2,
    name: 'mint',
    family: 'state',
    contract: 'enqueueing a fresh JOB id writes a row of exactly {state: pending, attempts: 0, payload}',
    async run(env) {
      const q = await env.queue();
      const id = env.mintId('JOB');
      assertFields(await q.enqueue({ n: 1 }, { id }), { status: 'enqueued', id }, 'enqueue');
      assert.deepEqual(await hgetall(env, q.keys.job(id)), { state: 'pending', attempts: '0', payload: q.codec.encode({ n: 1 }) });
      assert.equal(await zscore(env, q.keys.pending, id), 0);
    },
  },
  {
    no: 3,
    name: 'duplicate',
    family: 'state',
    contract: 'enqueueing the same id again reports duplicate and the first payload stands',
    async run(env) {
      const q = await env.queue();
      const id = env.mintId('JOB');
      assert.equal((await q.enqueue('first', { id })).status, 'enqueued');
      assertFields(await q.enqueue('second', { id }), { status: 'duplicate', id }, 'second enqueue');
      assert.equal(await env.command('HGET', q.keys.job(id), 'payload'), q.codec.encode('first'));
      assert.equal(await count(env, 'ZCARD', q.keys.pending), 1);
    },
  },
  {
    no: 4,
    name: 'kind',
    family: 'state',
    contract: 'enqueueing an ORD id fails with KindError (EMQKIND) and no row exists afterwards',
    async run(env) {
      const q = await env.queue();
      const id = env.mintId('ORD');
      assertError(await rejection(q.enqueue('x', { id })), KindError, { errorClass: 'EMQKIND' });
      assert.equal(await count(env, 'EXISTS', q.keys.job(id)), 0);
      assert.equal(await count(env, 'ZCARD', q.keys.pending), 0);
    },
  },
  {
    no: 5,
    name: 'order',
    family: 'state',
    contract: 'three ids enqueued in mint order list in reverse mint order by ZRANGE pending + - BYLEX REV',
    async run(env) {
      const q = await env.queue();
      const ids = [env.mintId('JOB'), env.mintId('JOB'), env.mintId('JOB')];
      for (const [n, id] of ids.entries()) await q.enqueue(n, { id });
      const reversed = [...ids].reverse();
      assert.deepEqual(await env.command('ZRANGE', q.keys.pending, '+', '-', 'BYLEX', 'REV'), reversed);
      assert.deepEqual([...(await q.browse(3))], reversed);
    },
  },
  {
    no: 6,
    name: 'claim',
    family: 'state',
    contract: "the first claim returns the payload and token 1, and the row's state becomes active",
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue({ n: 6 });
      const job = present(await q.leases().claim(30_000), 'a claimed job');
      assert.equal(job.id, id);
      assert.deepEqual(job.payload, { n: 6 });
      assert.equal(job.attempts, 1);
      assert.equal(await env.command('HGET', q.keys.job(id), 'state'), 'active');
      assert.deepEqual(await setsHolding(env, q, id), ['active']);
    },
  },
  {
    no: 7,
    name: 'stale',
    family: 'state',
    contract: 'after SCRIPT FLUSH, completing with token 99 fails with StaleError; the live token 1 then succeeds',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('s');
      assert.equal(present(await q.leases().claim(30_000), 'a claimed job').attempts, 1);
      await env.flushScripts();
      const loads = env.stats().scriptLoads;
      assertError(await rejection(q.leases().complete({ id, attempts: 99 })), StaleError, { errorClass: 'EMQSTALE' });
      assert.ok(env.stats().scriptLoads > loads, 'the NOSCRIPT path loaded the script again');
      assert.equal(await env.command('HGET', q.keys.job(id), 'attempts'), '1');
      await q.leases().complete({ id, attempts: 1 });
      assert.equal(await count(env, 'EXISTS', q.keys.job(id)), 0);
    },
  },
  {
    no: 8,
    name: 'complete',
    family: 'state',
    contract: 'after complete the row no longer exists and active is empty',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('c');
      await q.leases().complete(present(await q.leases().claim(30_000), 'a claimed job'));
      assert.equal(await count(env, 'EXISTS', q.keys.job(id)), 0);
      assert.equal(await count(env, 'ZCARD', q.keys.active), 0);
      assert.equal(await env.command('HGET', q.keys.metricsCompleted, 'count'), '1');
    },
  },
  {
    no: 9,
    name: 'retry',
    family: 'state',
    contract: 'retry with 10 ms: state=scheduled, last_error kept; after the wait promote moves 1, claim gets token 2, complete',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('r');
      const first = present(await q.leases().claim(30_000), 'a claimed job');
      assert.equal(await q.leases().retry(first, 10, 3, 'boom'), 'scheduled');
      assertFields(await hgetall(env, q.keys.job(id)), { state: 'scheduled', last_error: 'boom', attempts: '1' }, 'row');
      assert.deepEqual(await setsHolding(env, q, id), ['schedule']);
      await sleep(30);
      assert.equal(await q.maintenance().promote(), 1);
      const second = present(await q.leases().claim(30_000), 'the re-claimed job');
      assert.equal(second.id, id);
      assert.equal(second.attempts, 2);
      await q.leases().complete(second);
      assert.equal(await count(env, 'EXISTS', q.keys.job(id)), 0);
    },
  },
  {
    no: 10,
    name: 'dead',
    family: 'state',
    contract: 'a retry at the cap (max 1) dead-letters: state=dead, last_error kept, id listed in dead',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('d');
      assert.equal(await q.leases().retry(present(await q.leases().claim(30_000), 'a claimed job'), 0, 1, 'fatal'), 'dead');
      assertFields(await hgetall(env, q.keys.job(id)), { state: 'dead', last_error: 'fatal' }, 'row');
      assert.equal(await zscore(env, q.keys.dead, id), 0);
      assert.deepEqual(await setsHolding(env, q, id), ['dead']);
      assert.equal(await env.command('HGET', q.keys.metricsFailed, 'count'), '1');
    },
  },
  {
    no: 11,
    name: 'reap',
    family: 'state',
    contract: 'claim with a 30 ms lease, wait 60 ms: reap recovers 1, state is pending, a re-claim gets token 2',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('r');
      assert.equal(present(await q.leases().claim(30), 'a claimed job').attempts, 1);
      await sleep(60);
      assert.equal(await q.maintenance().reap(), 1);
      assert.equal(await env.command('HGET', q.keys.job(id), 'state'), 'pending');
      assert.deepEqual(await setsHolding(env, q, id), ['pending']);
      const again = present(await q.leases().claim(30_000), 'the re-claimed job');
      assert.equal(again.id, id);
      assert.equal(again.attempts, 2);
    },
  },
];
