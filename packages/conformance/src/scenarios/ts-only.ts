/** The TS-only extensions, appended after scenario 79 under the additive-minor law. */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { InvalidArgumentError, parseStreamEntries, StaleError, type AppendTraceContext, type EnqueueTraceContext, type JobId } from '@echo/protocol/extend';
import { fill } from './batches.js';
import { notBuilt, type Scenario } from '../scenario.js';
import { count, hgetall, present, setsHolding } from '../support.js';

/** Why the three protocol-internal extensions are not run through a target. */
export const IN_PROTOCOL_TESTS = "runs in @echo/protocol's own tests";

export const tsOnly: Scenario[] = [
  {
    name: 'ts_fence_major',
    family: 'ts',
    contract: 'echomq:3.9.9 is accepted; echomq:4.0.0 gives VersionFenceError(version_major_mismatch); garbage gives foreign_version; a fence error on reconnect stops the connector for good',
    // It rewrites the server-wide fence and kills connections, so it owns a server of its own there.
    skip: IN_PROTOCOL_TESTS,
    run: notBuilt,
  },
  {
    name: 'ts_declared_keys',
    family: 'ts',
    contract: 'every catalogued script keeps the §6 key law: KEYS share one slot, and every built key has a declared root left of .. and a vid-checked value right of it',
    skip: IN_PROTOCOL_TESTS,
    run: notBuilt,
  },
  {
    name: 'ts_vectors',
    family: 'ts',
    contract: 'the protocol.md §3.5 and §4.4 vectors and the bus.md §3 vectors all pass',
    skip: IN_PROTOCOL_TESTS,
    run: notBuilt,
  },
  {
    name: 'ts_complete_cleans',
    family: 'ts',
    contract: 'completing, with the still-matching token, a job a retry put in schedule (or dead) leaves the id in neither schedule nor dead',
    async run(env) {
      const q = await env.queue();
      const [scheduled, dead] = (await fill(env, q, 2)) as [JobId, JobId];
      const [s, d] = await q.leases().claimBatch(2, 30_000);
      const held = [present(s, 'the first member'), present(d, 'the second member')] as const;
      assert.equal(await q.leases().retry(held[0], 60_000, 3, 'later'), 'scheduled');
      assert.equal(await q.leases().retry(held[1], 0, 1, 'dead'), 'dead');
      assert.deepEqual(await setsHolding(env, q, scheduled), ['schedule']);
      assert.deepEqual(await setsHolding(env, q, dead), ['dead']);
      await q.leases().complete(held[0]);
      await q.leases().complete(held[1]);
      for (const id of [scheduled, dead]) {
        assert.deepEqual(await setsHolding(env, q, id), []);
        assert.equal(await count(env, 'EXISTS', q.keys.job(id)), 0);
      }
      assert.equal(await q.maintenance().promote(), 0);
      assert.deepEqual({ ...(await q.counts('completed', 'scheduled', 'dead')) }, { completed: 2, scheduled: 0, dead: 0 });
    },
  },
  {
    name: 'ts_job_options',
    family: 'ts',
    contract: 'per-job options are row fields name, max_attempts, backoff, timeout_ms written by the admission; the claim answers them after the six spec fields, and a retry capped at the row\'s max_attempts dead-letters',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('x', { name: 'ship', attempts: 1, timeoutMs: 500 });
      const row = await hgetall(env, q.keys.job(id));
      assert.deepEqual([row.state, row.attempts, row.name, row.max_attempts, row.timeout_ms, row.backoff], ['pending', '0', 'ship', '1', '500', undefined]);
      const job = present(await q.leases().claim(30_000), 'the claimed job');
      assert.deepEqual([job.id, job.name, job.maxAttempts, job.timeoutMs, job.backoff], [id, 'ship', 1, 500, undefined]);
      assert.equal(await q.leases().retry(job, 0, job.maxAttempts ?? 3, 'no'), 'dead');
    },
  },
  {
    name: 'ts_trace_context',
    family: 'ts',
    contract: 'a subscriber of tracing:emq.job.enqueue:start that fills the carrier gets row fields traceparent, tracestate written by the admission; the claim answers them after the per-job options; with nobody subscribed the row carries neither',
    async run(env) {
      const q = await env.queue();
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const fill = (message: unknown): void => {
        const ctx = message as EnqueueTraceContext;
        // Scenarios may share the process: only this scenario's queue is traced.
        if (ctx.queue !== q.name) return;
        ctx.carrier.traceparent = traceparent;
        ctx.carrier.tracestate = 'ro=1';
      };
      subscribe('tracing:emq.job.enqueue:start', fill);
      let traced: JobId;
      try {
        traced = (await q.enqueue('x', { name: 'ship' })).id;
      } finally {
        unsubscribe('tracing:emq.job.enqueue:start', fill);
      }
      const row = await hgetall(env, q.keys.job(traced));
      assert.deepEqual([row.state, row.name, row.traceparent, row.tracestate], ['pending', 'ship', traceparent, 'ro=1']);
      const job = present(await q.leases().claim(30_000), 'the claimed job');
      assert.deepEqual([job.id, job.name, job.trace], [traced, 'ship', { traceparent, tracestate: 'ro=1' }]);
      const { id: plain } = await q.enqueue('y');
      const bare = await hgetall(env, q.keys.job(plain));
      assert.deepEqual([bare.traceparent, bare.tracestate], [undefined, undefined]);
      assert.equal(present(await q.leases().claim(30_000), 'the plain job').trace, undefined);
    },
  },
  {
    name: 'ts_claim_gates',
    family: 'ts',
    contract: 'claims enforce meta.concurrency against active and meta.max per meta.duration ms through the limiter counter (a STRING with the window as its TTL); complete_claim answers the ms until the window reopens',
    async run(env) {
      const q = await env.queue();
      await fill(env, q, 4);
      await q.setGlobalConcurrency(1);
      assert.equal((await q.leases().claimBatch(4, 30_000)).length, 1);
      assert.equal(await q.leases().claim(30_000), undefined);
      await q.setGlobalConcurrency(null);
      await q.setRateLimit({ max: 2, durationMs: 60_000 });
      assert.equal((await q.leases().claimBatch(4, 30_000)).length, 2);
      assert.equal(await env.command('GET', q.keys.limiter), '2');
      const pttl = Number(await env.command('PTTL', q.keys.limiter));
      assert.ok(pttl > 0 && pttl <= 60_000, `limiter PTTL ${String(pttl)}`);
      const round = await q.leases().completeAndClaim([], 1, 30_000);
      assert.deepEqual(round.claimed, []);
      assert.ok(round.limitedMs > 0 && round.limitedMs <= 60_000);
      assert.ok((await q.getRateLimitTtl()) > 0);
    },
  },
  {
    name: 'ts_schedule_dedup',
    family: 'ts',
    contract: 'a timed admission under a dedup id writes a scheduled row, its schedule entry and de:<did> in one step; a second one under the key reports the first id and writes nothing',
    async run(env) {
      const q = await env.queue();
      const did = `d${env.mintId('JOB')}`;
      const first = await q.enqueue('a', { dedupId: did, delayMs: 60_000 });
      assert.equal(first.status, 'enqueued');
      assert.equal(await env.command('GET', q.keys.dedup(did)), first.id);
      assert.deepEqual(await setsHolding(env, q, first.id), ['schedule']);
      const refused = env.mintId('JOB') as JobId;
      const second = await q.enqueue('b', { id: refused, dedupId: did, delayMs: 5 });
      // The verdict names the job the key holds; the refused admission's own id is never written.
      assert.deepEqual(second, { status: 'duplicate', id: first.id, existingId: first.id });
      assert.equal(await count(env, 'EXISTS', q.keys.job(refused)), 0);
    },
  },
  {
    name: 'ts_lane_rate',
    family: 'ts',
    contract: 'grate holds a lane\'s own limit as max:duration (then :window_end:used); lane claims pass over a lane out of budget, keep it in the ring, and count their leases; a queue limit and a lane limit both bound a claim',
    async run(env) {
      const q = await env.queue();
      const [limited, free] = [env.mintId('PRT'), env.mintId('PRT')];
      for (let i = 0; i < 4; i++) {
        await q.enqueueInLane(limited, 'l');
        await q.enqueueInLane(free, 'f');
      }
      await q.laneRateLimit(limited, { max: 2, durationMs: 60_000 });
      assert.equal((await hgetall(env, q.keys.grate))[limited], '2:60000');
      const groups: string[] = [];
      for (let i = 0; i < 6; i++) groups.push(present(await q.leases().laneClaim(30_000), `claim ${String(i + 1)}`).group ?? '');
      assert.deepEqual([groups.filter((g) => g === limited).length, groups.filter((g) => g === free).length], [2, 4]);
      assert.equal(await q.leases().laneClaim(30_000), undefined);
      assert.match((await hgetall(env, q.keys.grate))[limited] ?? '', /^2:60000:\d+:2$/);
      assert.ok(((await env.command('LRANGE', q.keys.ring, 0, -1)) as string[]).includes(limited));
      await q.laneRateLimit(limited, null);
      await q.setRateLimit({ max: 1, durationMs: 60_000 });
      assert.equal((await q.leases().laneBatchClaim(30_000)).length, 1);
      assert.equal((await q.leases().laneBatchClaim(30_000)).length, 0);
    },
  },
  {
    name: 'ts_worker_registry',
    family: 'ts',
    contract: 'a running worker has an entry in workers (ZSET id -> lapse time, server ms) and workers:info (id -> JSON description); getWorkers lists it while its lapse time is ahead of the server clock, and a clean close removes both at once',
    async run(env) {
      const q = await env.queue();
      const worker = await env.startWorker(q, () => undefined, { name: 'conformance', concurrency: 2, maintenanceMs: 0 });
      const listed = present((await q.getWorkers())[0], 'the worker\'s entry');
      assert.deepEqual([listed.name, listed.concurrency], ['conformance', 2]);
      assert.equal(Number(await env.command('ZSCORE', q.keys.workers, listed.id)), listed.lapsesAt);
      const info = JSON.parse(String(await env.command('HGET', q.keys.workersInfo, listed.id))) as { name?: unknown };
      assert.equal(info.name, 'conformance');
      await worker.close();
      assert.deepEqual(await q.getWorkers(), []);
      assert.equal(await count(env, 'EXISTS', q.keys.workers, q.keys.workersInfo), 0);
    },
  },
  {
    name: 'ts_wait_children',
    family: 'ts',
    contract: 'a held job adds children (add_children, fenced on its token) and waits for them (wait_children): it leaves active for awaiting_children and joins emq:{q}:waiting-children; the last child\'s completion puts it back in pending at -priority and takes it out of the index; a stale token is refused with StaleError',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('parent', { priority: 2 });
      const job = present(await q.leases().claim(30_000), 'the claimed parent');
      const stale = { ...job, attempts: job.attempts + 1 };
      await assert.rejects(q.leases().waitForChildren(stale), StaleError);
      const [child] = await q.leases().addChildren(job, [{ payload: 'c' }]);
      assert.equal(await q.leases().waitForChildren(job), 1);
      assert.equal(await env.command('HGET', q.keys.job(id), 'state'), 'awaiting_children');
      assert.equal(await count(env, 'SISMEMBER', q.keys.waitingChildren, id), 1);
      assert.deepEqual(await q.counts('awaiting_children'), { awaiting_children: 1 });
      const held = present(await q.leases().claim(30_000), 'the claimed child');
      assert.equal(held.id, child?.id);
      await q.leases().complete(held, 'r');
      assert.equal(await env.command('ZSCORE', q.keys.pending, id), '-2');
      assert.equal(await count(env, 'EXISTS', q.keys.waitingChildren), 0);
    },
  },
  {
    name: 'ts_stream_trace_context',
    family: 'ts',
    contract: 'on a stream opened with traceContext, a subscriber of tracing:emq.stream.append:start that fills the carrier gets record fields _tp, _ts after the caller fields; reads strip them; a caller field _tp is refused with InvalidArgumentError and nothing is written; a stream without the option writes id and the caller fields only',
    async run(env) {
      const bus = await env.bus();
      const traced = bus.stream('traced', { traceContext: true });
      const plain = bus.stream('plain');
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const fill = (message: unknown): void => {
        const ctx = message as AppendTraceContext;
        // Scenarios may share the process: only this scenario's bus is traced.
        if (ctx.queue !== bus.queue) return;
        ctx.carrier.traceparent = traceparent;
        ctx.carrier.tracestate = 'ro=1';
      };
      subscribe('tracing:emq.stream.append:start', fill);
      let withContext: string;
      let without: string;
      try {
        withContext = await traced.append({ n: '1' });
        without = await plain.append({ n: '1' });
        await assert.rejects(traced.append({ _tp: 'x' }), InvalidArgumentError);
      } finally {
        unsubscribe('tracing:emq.stream.append:start', fill);
      }
      const raw = async (key: string): Promise<unknown> => parseStreamEntries(await env.command('XRANGE', key, '-', '+')).map(({ fields }) => fields);
      assert.deepEqual(await raw(traced.key), [['id', withContext, 'n', '1', '_tp', traceparent, '_ts', 'ro=1']]);
      assert.deepEqual(await raw(plain.key), [['id', without, 'n', '1']]);
      assert.deepEqual(await traced.read(), [[withContext, { n: '1' }]]);
    },
  },
];
