/**
 * The producer's W3C trace context in the job row [TS]: a subscriber of the `emq.job.enqueue`
 * tracing channel writes it into the carrier, the admission writes it into the row, every claim
 * answers it; the `emq.job.process` tracing channel runs each handler inside the subscriber's
 * context. Plain diagnostics_channel subscribers here: no tracing library is involved.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { useRedis, uniqueName, waitFor } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection, traces, type EnqueueTraceContext, type JobId, type ProcessTraceContext, type TraceContext } from '@echo/protocol/queue';
import { BatchWorker, Queue, Worker, type ClaimedJob } from '../src/index.js';
import { hgetall } from './worker-harness.js';

let conn: Connection;
const opened: Queue[] = [];
const offs: (() => void)[] = [];

beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterEach(() => {
  for (const off of offs.splice(0)) off();
});
afterAll(async () => {
  for (const q of opened) {
    const keys = (await q.connection.command('KEYS', `emq:{${q.name}}:*`)) as string[];
    if (keys.length > 0) await q.connection.command('DEL', ...keys);
  }
  await conn.close();
});

async function open<T>(): Promise<Queue<T>> {
  const q = await Queue.open<T>(uniqueName('tc'), { connection: conn });
  opened.push(q);
  return q;
}

/** A traceparent whose span id counts admissions, so each row's context is told apart. */
function traceparent(n: number): string {
  return `00-4bf92f3577b34da6a3ce929d0e0e4736-${n.toString(16).padStart(16, '0')}-01`;
}

/** Subscribes `fill` to the start of every admission; undone after the test. */
function injecting(fill: (carrier: EnqueueTraceContext['carrier'], ctx: EnqueueTraceContext) => void): void {
  const listener = (message: unknown): void => {
    const ctx = message as EnqueueTraceContext;
    fill(ctx.carrier, ctx);
  };
  subscribe('tracing:emq.job.enqueue:start', listener);
  offs.push(() => unsubscribe('tracing:emq.job.enqueue:start', listener));
}

function counting(): () => TraceContext {
  let n = 0;
  const given: TraceContext[] = [];
  injecting((carrier) => {
    n += 1;
    carrier.traceparent = traceparent(n);
    carrier.tracestate = `ro=${String(n)}`;
    given.push({ traceparent: carrier.traceparent, tracestate: carrier.tracestate });
  });
  return () => given.at(-1) as TraceContext;
}

describe('trace context in the job row', () => {
  it('a tracing subscriber writes it into the row of every single admission, and every claim answers it', async () => {
    const q = await open<string>();
    const last = counting();
    const { id } = await q.enqueue('a');
    const first = last();
    expect(await hgetall(conn, q.keys.job(id))).toMatchObject({ state: 'pending', payload: '"a"', traceparent: first.traceparent, tracestate: first.tracestate });
    expect((await q.leases().claim(1000))?.trace).toEqual(first);

    const timed = await q.enqueue('b', { runAt: Date.now() - 1 });
    const timedCtx = last();
    const keyed = await q.enqueue('c', { dedupId: uniqueName('k') });
    const keyedCtx = last();
    expect(await q.maintenance().promote()).toBe(1);
    const batch = await q.leases().claimBatch(10, 1000);
    expect(new Map(batch.map((j) => [j.id, j.trace]))).toEqual(new Map([[keyed.id, keyedCtx], [timed.id, timedCtx]]));

    const next = await q.enqueue('d');
    const nextCtx = last();
    const round = await q.leases().completeAndClaim(batch, 5, 1000);
    expect(round.claimed.map((j) => [j.id, j.trace])).toEqual([[next.id, nextCtx]]);
  });

  it('lane admissions carry it to the lane claims', async () => {
    const q = await open<string>();
    const last = counting();
    const group = 'USR0Nb1VTbfnu4';
    const one = await q.enqueueInLane(group, 'x');
    const oneCtx = last();
    expect(await q.leases().laneClaim(1000)).toMatchObject({ id: one.id, group, trace: oneCtx });
    const two = await q.enqueueInLane(group, 'y');
    const twoCtx = last();
    expect((await q.leases().laneBatchClaim(1000)).map((j) => j.trace)).toEqual([twoCtx]);
    const three = await q.enqueueInLane(group, 'z');
    expect((await q.leases().laneWeightedClaim(1000)).map((j) => [j.id, j.trace])).toEqual([[three.id, last()]]);
    expect(two.id).not.toBe(three.id);
  });

  it('a malformed context from a subscriber is dropped, and the admission still lands', async () => {
    const q = await open<string>();
    injecting((carrier, ctx) => {
      carrier.traceparent = ctx.delayed ? traceparent(7) : 'not-a-traceparent';
      carrier.tracestate = 'bad\nstate';
    });
    const { id } = await q.enqueue('a');
    const row = await hgetall(conn, q.keys.job(id));
    expect(row.state).toBe('pending');
    expect(row).not.toHaveProperty('traceparent');
    const later = await q.enqueue('b', { delayMs: 60_000 });
    const timed = await hgetall(conn, q.keys.job(later.id));
    expect([timed.traceparent, timed.tracestate]).toEqual([traceparent(7), undefined]);
  });

  it('with nobody tracing, the row carries no trace field and the claim answers none', async () => {
    const q = await open<string>();
    expect(traces.enqueue.hasSubscribers).toBe(false);
    const { id } = await q.enqueue('a');
    expect(Object.keys(await hgetall(conn, q.keys.job(id))).sort()).toEqual(['attempts', 'payload', 'state']);
    expect((await q.leases().claim(1000))?.trace).toBeUndefined();
  });
});

describe('handlers inside the emq.job.process tracing channel', () => {
  function processing(): ProcessTraceContext[] {
    const seen: ProcessTraceContext[] = [];
    const store = new AsyncLocalStorage<string>();
    const listener = (message: unknown): void => {
      const ctx = message as ProcessTraceContext;
      seen.push(ctx);
      const outer = ctx.enter;
      ctx.enter = (run) => store.run(`entered:${ctx.jobs.map((j) => j.jobId).join(',')}`, () => (outer ? outer(run) : run()));
    };
    subscribe('tracing:emq.job.process:start', listener);
    offs.push(() => unsubscribe('tracing:emq.job.process:start', listener));
    inside = () => store.getStore();
    return seen;
  }
  let inside: () => string | undefined = () => undefined;

  it("a Worker's handler runs inside the subscriber's enter, and the start names the job and its row context", async () => {
    const q = await open<string>();
    const last = counting();
    const seen = processing();
    const { id } = await q.enqueue('a');
    const ctx = last();
    const stores: (string | undefined)[] = [];
    const worker = await Worker.start(q, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      stores.push(inside());
    }, { blockMs: 50 });
    await waitFor(() => stores.length === 1, { what: 'the handler' });
    await worker.close();
    expect(stores).toEqual([`entered:${id}`]);
    expect(seen.map((s) => [s.queue, s.batch, s.jobs])).toEqual([[q.name, false, [{ jobId: id, attempt: 1, group: undefined, trace: ctx }]]]);
  });

  it('a store bound with start.bindStore holds in a BatchWorker handler, for the whole batch', async () => {
    const q = await open<string>();
    counting();
    const store = new AsyncLocalStorage<readonly (TraceContext | undefined)[]>();
    traces.process.start.bindStore(store, (ctx) => ctx.jobs.map((j) => j.trace));
    offs.push(() => void traces.process.start.unbindStore(store));
    const a = await q.enqueue('a');
    const b = await q.enqueue('b');
    const rows = await Promise.all([a.id, b.id].map(async (id: JobId) => (await hgetall(conn, q.keys.job(id))).traceparent));
    let held: readonly (TraceContext | undefined)[] | undefined;
    let ran: readonly ClaimedJob<string>[] = [];
    const worker = await BatchWorker.start(q, async (jobs) => {
      await new Promise((resolve) => setImmediate(resolve));
      held = store.getStore();
      ran = jobs;
      return 'ok' as const;
    }, { size: 10, blockMs: 50 });
    await waitFor(() => held !== undefined, { what: 'the batch handler' });
    await worker.close();
    expect(held?.map((t) => t?.traceparent)).toEqual(ran.map((j) => j.trace?.traceparent));
    expect([...(held ?? [])].map((t) => t?.traceparent).sort()).toEqual([...rows].sort());
  });
});
