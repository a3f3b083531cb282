/**
 * A worker behind a TCP proxy whose server-to-client direction the test holds, lags or cuts: every
 * completion the server accepted reaches the worker's events, whichever send landed it, and no
 * handler starts on a claim whose reply came after half its lease.
 */
import { Connection, GoneError, StaleError } from '@echo/protocol/queue';
import { startLinkProxy, startRedis, uniqueName, type LinkProxy, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker, type KeepPolicy } from '../src/index.js';
import { sleep, until } from './worker-harness.js';

let server: RedisServer;
let direct: Connection;
const cleanups: (() => Promise<unknown>)[] = [];
const proxies: LinkProxy[] = [];

beforeAll(async () => {
  server = await startRedis();
  direct = await Connection.connect(server.url);
});
afterAll(async () => {
  // Nothing stays held while the workers close: a test that failed with its link held must not
  // make every close wait out its bound, past the hook's timeout, and hide the failure behind it.
  for (const proxy of proxies) proxy.cut();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await direct.close();
  await server.stop();
});

/** A proxy in front of the server, a connection through it, and the queue on both sides. */
async function behindProxy(options: { keep?: KeepPolicy; replyTimeoutMs?: number } = {}): Promise<{ proxy: LinkProxy; queue: Queue<number>; watch: Queue<number> }> {
  const proxy = await startLinkProxy({ target: { host: server.host, port: server.port } });
  const url = `redis://${proxy.host}:${String(proxy.port)}`;
  const via = await Connection.connect(options.replyTimeoutMs === undefined ? url : { url, replyTimeoutMs: options.replyTimeoutMs });
  proxies.push(proxy);
  cleanups.push(() => proxy.close(), () => via.close({ immediate: true }));
  const name = uniqueName('link');
  const keep = options.keep === undefined ? {} : { keep: options.keep };
  return { proxy, queue: await Queue.open<number>(name, { connection: via, ...keep }), watch: await Queue.open<number>(name, { connection: direct, ...keep }) };
}

describe('a worker on a faulty link', () => {
  it('a completion whose reply was lost to a reset still reaches the completed event (and is not counted lost)', async () => {
    const { proxy, queue, watch } = await behindProxy();
    const { id } = await watch.enqueue(1);
    const completed: string[] = [];
    const errors: unknown[] = [];
    const worker = await Worker.start(
      queue,
      () => {
        // The round that completes this job (with the next claim) goes out; its reply stays here.
        proxy.hold();
        return 'done';
      },
      { concurrency: 1, leaseMs: 10_000, blockMs: 50, maintenanceMs: 0, onError: (error) => errors.push(error) },
    );
    cleanups.push(() => worker.close());
    worker.on('completed', ({ job }) => completed.push(job.id));
    await until(async () => (await watch.getState(id)) === 'absent', 'the first send to complete the job on the server');
    // The reply is lost with the link: the worker resends, and hears that the job is gone.
    proxy.cut();
    await until(() => completed.length === 1, 'the completed event of the job the first send completed');
    expect(completed).toEqual([id]);
    expect(worker.stats()).toMatchObject({ completed: 1, lost: 0 });
    expect(errors.filter((e) => e instanceof StaleError)).toEqual([]);
  });

  // Past the lease bound `gone` could be another worker's verdict (the job reaped, re-run and
  // completed elsewhere): the worker asks the server whose completion it holds, by the token kept
  // with the verdict (the retained row's attempts, or the outcomes entry's token [TS]).
  for (const [where, keep] of [
    ['the recent completions (no row kept)', undefined],
    ['the retained row', { completed: { count: 10 } }],
  ] as const) {
    it(`a completion cut off and resent only after its lease ran out, heard gone, is still the worker's own: read from ${where}`, async () => {
      // Only the cut drops the link (no reply timeout while it is held): the resend then has a whole
      // lease from the cut to reconnect and be answered, room enough on a loaded machine.
      const { proxy, queue, watch } = await behindProxy({ replyTimeoutMs: 60_000, ...(keep === undefined ? {} : { keep }) });
      const { id } = await watch.enqueue(1);
      const completed: string[] = [];
      const errors: unknown[] = [];
      const leaseMs = 4_000;
      let heldAt: number | undefined;
      const worker = await Worker.start(
        queue,
        () => {
          // The completing round goes out after this; its reply, and every later one, stays here.
          heldAt = Date.now();
          proxy.hold();
          return 'done';
        },
        { concurrency: 1, leaseMs, blockMs: 50, maintenanceMs: 0, onError: (error) => errors.push(error) },
      );
      cleanups.push(() => worker.close());
      worker.on('completed', ({ job }) => completed.push(job.id));
      // One read of the state, after the handler held the link: two reads could see `pending` then
      // `active` (the claim landing between them) and pass before the handler ran, and the cut would
      // then come before the hold, which nothing would lift (two loaded CI runs hung so).
      await until(async () => {
        if (heldAt === undefined) return false;
        const state = await watch.getState(id);
        return state !== 'active' && state !== 'pending';
      }, 'the first send to complete the job on the server');
      const held = heldAt ?? 0;
      // No extension can have landed since the hold: once a lease has passed, the worker's own bound has too.
      await until(() => Date.now() > held + leaseMs + 200, 'the lease to run out', 15_000);
      proxy.cut();
      await until(() => completed.length === 1, 'the completed event of the job the first send completed', 45_000);
      expect(completed).toEqual([id]);
      expect(worker.stats()).toMatchObject({ completed: 1, lost: 0 });
      expect(errors.filter((e) => e instanceof StaleError || e instanceof GoneError)).toEqual([]);
    }, 60_000);
  }

  it('close() resolves within its bound on a link that answers nothing (held replies, no reply timeout)', async () => {
    const { proxy, queue, watch } = await behindProxy({ replyTimeoutMs: 60_000 });
    const closeTimeoutMs = 500;
    const worker = await Worker.start(
      queue,
      () => {
        // The completing round, the lease beats and the registry beats go out after this; no reply
        // comes back, and none is declared lost before the 60 s reply timeout.
        proxy.hold();
        return 'done';
      },
      { concurrency: 1, leaseMs: 1_000, blockMs: 50, maintenanceMs: 100, closeTimeoutMs, onError: () => undefined },
    );
    const closed: number[] = [];
    worker.on('closed', () => closed.push(Date.now()));
    await watch.enqueue(1);
    await until(() => proxy.mode.kind === 'hold' && proxy.heldBytes > 0, 'a reply to be held');
    // A beat goes out every 500 ms: wait for one sent under the hold, so leaving the registry has a
    // held call to wait behind, as the link-fault runs that hung had.
    const bytes = proxy.heldBytes;
    await until(() => proxy.heldBytes > bytes, 'a later call to be held too');
    const started = Date.now();
    // The bound is closeTimeoutMs + 1 s + 5 s = 6.5 s; 15 s leaves 8.5 s for late timers on a loaded
    // machine and is still far below the 60 s an unbounded close waits for the reply timeout.
    const outcome = await Promise.race([worker.close().then(() => 'closed' as const), sleep(15_000).then(() => 'still closing' as const)]);
    expect(outcome).toBe('closed');
    expect(closed).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(closeTimeoutMs);
  });

  it('a claim reply that arrives after half the lease starts no handler and hands the job back; it runs once, after the heal', async () => {
    const { proxy, queue, watch } = await behindProxy();
    const starts: { attempts: number; lagging: boolean }[] = [];
    const givenUp: unknown[] = [];
    let lagging = false;
    const worker = await Worker.start(
      queue,
      (job) => {
        starts.push({ attempts: job.attempts, lagging });
      },
      {
        concurrency: 1,
        leaseMs: 2_000,
        blockMs: 50,
        // No pump: nothing reaps a lapsed lease here, so only the give-back can bring the job back.
        maintenanceMs: 0,
        onError: (error) => {
          if (error instanceof StaleError && error.message.includes('given up')) givenUp.push(error);
        },
      },
    );
    cleanups.push(() => worker.close());
    proxy.lag(1_500);
    lagging = true;
    const { id } = await watch.enqueue(1);
    await until(() => givenUp.length >= 1, 'the late claim reply to be given up', 10_000);
    proxy.release();
    lagging = false;
    // Handed back when its late reply came (each lagged claim of it the same way): a timely claim runs it.
    await until(async () => (await watch.getState(id)) === 'absent', 'the job to run and complete after the heal', 15_000);
    expect(starts.filter((s) => s.lagging)).toEqual([]);
    expect(starts).toHaveLength(1);
    expect(starts[0]?.attempts).toBeGreaterThanOrEqual(2);
  });
});
