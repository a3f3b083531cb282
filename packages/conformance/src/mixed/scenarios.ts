/**
 * The mixed scenarios: every multi-actor contract of the queue and the stream log with its steps
 * split between Echo and the spec-only runtime. Each ends by checking Echo's reads against the rows.
 */
import assert from 'node:assert/strict';
import { JobFailedError } from '@echo/queue';
import { decodeId } from '../spec-runtime/index.js';
import { isBrandedId } from '@echo/protocol/extend';
import type { ActorClaim } from './actors.js';
import type { MixedEnv, MixedScenario } from './scenario.js';
import { assertEchoAgrees, truthOf } from './truth.js';
import { until } from '../support.js';

/** Bytes that must cross unchanged: JSON, non-ASCII, a NUL, a CRLF. */
const PAYLOAD = '{"order":7,"note":"d\u00e9j\u00e0 vu \u2713"}\u0000\r\n';

/**
 * Two writers' EVT ids share no sequence, so an append in the same millisecond as the stream's top
 * can be refused as non-monotonic (bus.md §2.2: never swallowed, never retried with `*`). A writer
 * taking its turn waits for the clock to pass the top's millisecond first.
 */
async function pastMsOf(id: string): Promise<void> {
  const ms = Number((decodeId(id).snowflake >> 22n) + 1704067200000n);
  await until(() => Date.now() > ms, `the clock to pass ${id}'s millisecond`);
}

function got<T>(value: T | undefined, what: string): T {
  assert.ok(value !== undefined, `expected ${what}`);
  return value;
}

async function claimOne(env: MixedEnv, who: 'a' | 'b'): Promise<ActorClaim> {
  return got(await env[who].claim(), `${env[who].kind} to claim a job`);
}

export const MIXED_SCENARIOS: readonly MixedScenario[] = [
  {
    name: 'claim-complete',
    contract: 'a job one runtime enqueues, the other claims (same id, bytes, token 1) and the first completes; the row goes, completed counts 1',
    async run(env) {
      const id = await env.a.enqueue(PAYLOAD);
      // Subscribed before the verdict: a job another runtime completed before a waiter subscribed has
      // no row and no entry in Echo's recent outcomes (its own [TS] stream), so it reads as not found.
      const events = await env.echo.events();
      const waiting = env.echo.waitUntilFinished(id, { timeoutMs: 10_000, events }).finally(() => events.close());
      const job = await claimOne(env, 'b');
      assert.deepEqual([job.id, job.payload, job.token], [id, PAYLOAD, 1]);
      assert.equal((await truthOf(env, id)).state, 'active');
      await assertEchoAgrees(env, [id]);
      await env.a.complete(job);
      assert.equal((await waiting).id, id, 'waitUntilFinished resolves on the other runtime\'s completion');
      assert.equal((await truthOf(env, id)).exists, false);
      assert.equal(await env.command('HGET', env.spec.key('metrics:completed'), 'count'), '1');
      await assertEchoAgrees(env, [id]);
    },
  },
  {
    name: 'retry-promote',
    contract: 'a retry below the cap by one runtime is promoted and re-claimed by the other with token 2',
    async run(env) {
      const id = await env.a.enqueue(PAYLOAD);
      const first = await claimOne(env, 'b');
      assert.equal(await env.b.retry(first, 0, 3, 'boom'), 'scheduled');
      const row = await truthOf(env, id);
      assert.deepEqual([row.state, row.lastError, row.set], ['scheduled', 'boom', 'schedule']);
      await assertEchoAgrees(env, [id]);
      assert.equal(await env.a.promote(), 1);
      const second = await claimOne(env, 'a');
      assert.deepEqual([second.id, second.token, second.payload], [id, 2, PAYLOAD]);
      await env.b.complete(second);
      await assertEchoAgrees(env, [id]);
    },
  },
  {
    name: 'stale-token',
    contract: "a token the other runtime's re-claim moved past is refused with EMQSTALE, and nothing changes",
    async run(env) {
      const id = await env.a.enqueue(PAYLOAD);
      const first = await claimOne(env, 'a');
      await env.b.delay(first, 0);
      assert.equal(await env.b.promote(), 1);
      const second = await claimOne(env, 'b');
      assert.equal(second.token, 2);
      await assert.rejects(env.a.complete(first), /EMQSTALE|token|stale/i);
      assert.equal((await truthOf(env, id)).state, 'active');
      await env.a.complete(second);
      await assertEchoAgrees(env, [id]);
    },
  },
  {
    name: 'dead-reprocess',
    contract: 'a job dead-lettered by one runtime is reprocessed by the other: pending again, no finish time, in no dead listing, claimed with token 2',
    async run(env) {
      const id = await env.a.enqueue(PAYLOAD);
      const events = await env.echo.events();
      const waiting = env.echo.waitUntilFinished(id, { timeoutMs: 10_000, events }).finally(() => events.close()).then(
        () => 'completed',
        (error: unknown) => (error instanceof JobFailedError ? error.failure : String(error)),
      );
      assert.equal(await env.a.retry(await claimOne(env, 'a'), 0, 1, 'poison'), 'dead');
      assert.equal(await waiting, 'poison', 'waitUntilFinished rejects with the dead row\'s error');
      assert.deepEqual([(await truthOf(env, id)).state, (await truthOf(env, id)).set], ['dead', 'dead']);
      await assertEchoAgrees(env, [id]);
      await env.b.reprocess(id);
      const row = await truthOf(env, id);
      assert.deepEqual([row.state, row.set, row.lastError], ['pending', 'pending', undefined]);
      await assertEchoAgrees(env, [id]);
      assert.equal((await env.echo.listJobs('failed')).jobs.length, 0, "Echo's failed listing drops the reprocessed job");
      const again = await claimOne(env, 'a');
      assert.deepEqual([again.id, again.token], [id, 2]);
      await env.b.complete(again);
      await assertEchoAgrees(env, [id]);
    },
  },
  {
    name: 'remove',
    contract: 'a job one runtime enqueued and the other removed is gone from every read',
    async run(env) {
      const id = await env.a.enqueue(PAYLOAD);
      await env.b.remove(id);
      await assertEchoAgrees(env, [id]);
      assert.equal(await env.echo.getState(id), 'absent');
    },
  },
  {
    name: 'lanes',
    contract: "lane jobs one runtime enqueued are served by the other's lane claim in ring rotation and settled across",
    async run(env) {
      const [g1, g2] = [env.mint('PRT'), env.mint('PRT')];
      const ids = [await env.a.laneEnqueue(g1, 'a1'), await env.a.laneEnqueue(g1, 'a2'), await env.a.laneEnqueue(g2, 'b1')];
      assert.deepEqual(await env.echo.counts('pending', 'lanes'), { pending: 0, lanes: 3 }, "Echo counts lane jobs apart from pending");
      assert.equal(await env.b.claim(), undefined, 'a plain claim does not serve lane jobs');
      const served: ActorClaim[] = [];
      for (let i = 0; i < 3; i++) served.push(got(await env.b.laneClaim(), 'a lane job'));
      assert.deepEqual(served.map((j) => [j.payload, j.group]), [['a1', g1], ['b1', g2], ['a2', g1]]);
      assert.equal(await env.command('HGET', env.spec.key('gactive'), g1), '2');
      await assertEchoAgrees(env, ids);
      for (const job of served) await env.a.complete(job);
      assert.deepEqual([await env.command('EXISTS', env.spec.key('gactive')), await env.command('LLEN', env.spec.key('ring'))], [0, 0]);
      await assertEchoAgrees(env, ids);
    },
  },
  {
    name: 'reap',
    contract: "a lease one runtime let lapse is reaped by the other, and the job is claimed again with token 2",
    async run(env) {
      const id = await env.a.enqueue(PAYLOAD);
      const lapsed = got(await env.a.claim(1), 'a job on a 1 ms lease');
      await until(async () => (await env.b.reap()) === 1, 'the lapsed lease to be reaped');
      assert.deepEqual([(await truthOf(env, id)).state, (await truthOf(env, id)).set], ['pending', 'pending']);
      await assertEchoAgrees(env, [id]);
      const again = await claimOne(env, 'b');
      assert.deepEqual([again.id, again.token], [lapsed.id, 2]);
      await assert.rejects(env.a.complete(lapsed), /EMQSTALE|token|stale/i);
      await env.a.complete(again);
      await assertEchoAgrees(env, [id]);
    },
  },
  {
    name: 'lane-limit-pause',
    contract: "a lane ceiling and a lane pause set by one runtime hold for the other's lane claims; raising and resuming bring the lane back",
    async run(env) {
      const g = env.mint('PRT');
      const ids = [await env.a.laneEnqueue(g, 'x1'), await env.a.laneEnqueue(g, 'x2'), await env.a.laneEnqueue(g, 'x3')];
      await env.a.laneLimit(g, 1);
      const first = got(await env.b.laneClaim(), 'the first lane job');
      assert.equal(await env.b.laneClaim(), undefined, 'the ceiling of 1 parks the lane');
      assert.deepEqual(await env.echo.counts('lanes', 'active'), { lanes: 2, active: 1 }, 'a lane parked at its ceiling is still counted');
      await env.a.complete(first);
      await env.a.lanePause(g);
      assert.equal(await env.b.laneClaim(), undefined, 'a paused lane is not served');
      assert.deepEqual(await env.echo.counts('lanes'), { lanes: 2 }, 'a paused lane is still counted');
      await env.a.laneResume(g);
      await env.a.laneLimit(g, 5);
      const rest = [got(await env.b.laneClaim(), 'x2'), got(await env.b.laneClaim(), 'x3')];
      assert.deepEqual(rest.map((j) => j.payload), ['x2', 'x3']);
      await assertEchoAgrees(env, ids);
      for (const job of rest) await env.b.complete(job);
      await assertEchoAgrees(env, ids);
    },
  },
  {
    name: 'lane-dead-reprocess',
    contract: 'a dead lane job reprocessed by the other runtime goes back to its lane (I4), never to flat pending',
    async run(env) {
      const g = env.mint('PRT');
      const id = await env.a.laneEnqueue(g, PAYLOAD);
      assert.equal(await env.a.retry(got(await env.a.laneClaim(), 'a lane job'), 0, 1, 'poison'), 'dead');
      await env.b.reprocess(id);
      assert.equal((await truthOf(env, id)).set, 'lane');
      assert.deepEqual(await env.command('LRANGE', env.spec.key('ring'), 0, -1), [g]);
      await assertEchoAgrees(env, [id]);
      await env.b.complete(got(await env.b.laneClaim(), 'the reprocessed lane job'));
      await assertEchoAgrees(env, [id]);
    },
  },
  {
    name: 'obliterate',
    contract: "a queue one runtime filled (pending, dead, lanes) is obliterated by the other: no spec key is left, and Echo's reads show an empty queue",
    async run(env) {
      // Echo's own [TS] structures beside the spec's: a retained completed row, the finish-time
      // indexes, an expired job, the recent outcomes.
      await env.echo.setRetention({ completed: { count: 10 } });
      const late = (await env.echo.enqueue('late', { expireAt: 1 })).id;
      assert.equal(await env.echo.leases().claim(30_000), undefined, 'the claim settles the late job as expired');
      const kept = (await env.echo.enqueue('kept')).id;
      const held = got(await env.echo.leases().claim(30_000), 'the job to keep');
      await env.echo.leases().complete(held);
      const ids = [late, kept, await env.a.enqueue('p'), await env.a.enqueue('d'), await env.a.laneEnqueue(env.mint('PRT'), 'l')];
      await env.a.retry(await claimOne(env, 'a'), 0, 1, 'poison');
      await env.b.obliterate();
      for (const suffix of ['pending', 'active', 'schedule', 'dead', 'meta', 'ring', 'gactive', 'metrics:failed']) {
        assert.equal(await env.command('EXISTS', env.spec.key(suffix)), 0, `${suffix} is gone`);
      }
      await assertEchoAgrees(env, ids);
      for (const state of ['pending', 'dead', 'failed'] as const) {
        assert.equal((await env.echo.listJobs(state)).jobs.length, 0, `listJobs('${state}') after the other runtime's obliterate`);
      }
      // What only Echo wrote, Echo's own obliterate sweeps, also after another runtime's.
      await env.echo.pause();
      await env.echo.obliterate({ force: true });
      assert.deepEqual(await env.scan(`${env.spec.base}*`), [], 'no key of the queue is left');
    },
  },
  {
    name: 'streams',
    contract: 'stream records cross both ways: same EVT ids, same fields, one order; ids parse in both runtimes',
    async run(env) {
      const first = await env.a.append('audit', { k: 'v1', note: PAYLOAD });
      await pastMsOf(first);
      const second = await env.b.append('audit', { k: 'v2' });
      await pastMsOf(second);
      const third = await env.a.append('audit', { k: 'v3' });
      for (const side of [env.a, env.b]) {
        const seen = await side.read('audit');
        assert.deepEqual(seen, [
          { id: first, fields: { k: 'v1', note: PAYLOAD } },
          { id: second, fields: { k: 'v2' } },
          { id: third, fields: { k: 'v3' } },
        ], `${side.kind} reads the log`);
      }
      for (const id of [first, second, third]) {
        assert.ok(isBrandedId(id), `Echo parses ${id}`);
        assert.equal(decodeId(id).ns, 'EVT', `the spec runtime parses ${id}`);
      }
    },
  },
];
