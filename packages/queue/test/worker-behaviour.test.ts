/**
 * What a demanding user expects from a Worker, beyond the wire scenarios: crash recovery, fencing of
 * a stale holder, lease extension, orderly close, surviving dropped sockets, refusing bad input,
 * and an idle worker that does not poll. Standalone only.
 */
import { startRedis, useRedis, uniqueName, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodecError,
  Connection,
  InvalidArgumentError,
  InvalidNameError,
  LockedError,
  MalformedIdError,
  mintId,
  StaleError,
} from '@echo/protocol/queue';
import { Queue, Worker, type CancelToken, type Handler, type WorkerOptions } from '../src/index.js';
import { expectError, hgetall, rejection, sleep, until } from './worker-harness.js';

let conn: Connection;
/** A server of our own, for tests that kill connections or count every command the server runs. */
let own: RedisServer;
let ownConn: Connection;
const opened: Queue[] = [];

beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
  own = await startRedis();
  ownConn = await Connection.connect({ url: own.url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  for (const q of opened) {
    const keys = (await q.connection.command('KEYS', `emq:{${q.name}}:*`)) as string[];
    if (keys.length > 0) await q.connection.command('DEL', ...keys);
  }
  await conn.close();
  await ownConn.close();
  await own.stop();
});

async function open<T>(on: Connection = conn): Promise<Queue<T>> {
  const q = await Queue.open<T>(uniqueName('wb'), { connection: on });
  opened.push(q);
  return q;
}

/** Starts a worker that is closed after `body`, pass or fail. */
async function withWorker<T>(
  q: Queue<T>,
  handler: Handler<T>,
  options: WorkerOptions,
  body: (worker: Worker<T>) => Promise<void>,
): Promise<void> {
  const worker = await Worker.start(q, handler, options);
  try {
    await body(worker);
  } finally {
    await worker.close();
  }
}

async function info(server: RedisServer, section: string): Promise<string> {
  const client = server.client();
  try {
    return (await client.call('INFO', section)) as string;
  } finally {
    client.disconnect();
  }
}

/**
 * Admits payloads `from..from+count` the way a careful producer does across a dropped socket: an
 * item answered `failed` (ConnectionLostError: it may or may not have landed) is sent again under
 * the same id, which enqueue makes safe.
 */
async function admit(q: Queue<number>, from: number, count: number): Promise<void> {
  let items = Array.from({ length: count }, (_, n) => ({ id: mintId('JOB'), payload: from + n }));
  for (let round = 0; items.length > 0; round++) {
    if (round === 50) throw new Error('admission kept failing');
    const verdicts = await q.enqueueMany(items);
    items = items.filter((_, i) => verdicts[i]?.status === 'failed');
    if (items.length > 0) await sleep(50);
  }
}

function field(text: string, pattern: RegExp): number {
  return Number(pattern.exec(text)?.[1] ?? 0);
}

describe('Worker behaviour', () => {
  it('(a) hands a crashed holder\'s job to a live worker once its lease lapses, with attempts 2', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('orphan');
    const crashed = await q.leases().claim(100);
    expect(crashed?.attempts).toBe(1);
    const seen: number[] = [];
    await withWorker(q, (job) => void seen.push(job.attempts), { leaseMs: 1_000, maintenanceMs: 20, blockMs: 50 }, async () => {
      await until(async () => (await q.counts('completed')).completed === 1, 'the orphan to complete');
    });
    expect(seen).toEqual([2]);
    expect(await conn.command('EXISTS', q.keys.job(id))).toBe(0);
  });

  it('(b) fences out a stale holder: its complete after reap and re-claim fails and changes nothing', async () => {
    const q = await open<string>();
    const elsewhere = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
    try {
      const other = await Queue.open<string>(q.name, { connection: elsewhere });
      const { id } = await q.enqueue('contested');
      const stale = await q.leases().claim(50);
      await sleep(80);
      expect(await q.maintenance().reap()).toBe(1);
      const live = await other.leases().claim(30_000);
      expect(live?.attempts).toBe(2);
      const before = await hgetall(conn, q.keys.job(id));
      expectError(await rejection(q.leases().complete(stale as NonNullable<typeof stale>)), StaleError);
      expect(await hgetall(conn, q.keys.job(id))).toEqual(before);
      expect(await q.getState(id)).toBe('active');
      await other.leases().complete(live as NonNullable<typeof live>);
      expect(await q.counts('completed', 'active')).toEqual({ completed: 1, active: 0 });
    } finally {
      await elsewhere.close();
    }
  });

  it('(c) extends the lease of a slow handler: it runs once, past its original lease, never re-claimed', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('slow');
    const runs: number[] = [];
    // The lease bound the handler sees: at its start, within one lease of the claim; later, moved on by the extensions.
    const bounds: { at: number; until: number }[] = [];
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Ten extensions a lease, and a lease long enough that a claim reply a loaded machine delays stays
    // within its first half (a 200 ms lease extended every 50 ms lapsed on a loaded run, and a
    // 1 s lease saw its claim given up); sweeps every 20 ms would re-claim a lapsed lease at once.
    const options: WorkerOptions = { concurrency: 2, leaseMs: 2_000, extendEveryMs: 200, maintenanceMs: 20, blockMs: 50 };
    await withWorker(q, async (job, ctx) => {
      runs.push(job.attempts);
      bounds.push({ at: Date.now(), until: ctx.leaseUntil() });
      await released;
      bounds.push({ at: Date.now(), until: ctx.leaseUntil() });
    }, options, async (worker) => {
      await until(() => runs.length === 1, 'the handler to start');
      const original = bounds[0]?.until ?? 0;
      // The handler holds the job until its original lease is over by a tenth of a lease.
      await until(() => Date.now() > original + 200, 'the original lease to run out', 30_000);
      expect(await q.getState(id)).toBe('active');
      release();
      // The worker counts a completion when its reply arrives, which may be after another connection
      // already reads the server's counter: wait on the worker, then check the server.
      await until(() => worker.stats().completed === 1, 'the slow job to complete');
      expect(worker.stats()).toMatchObject({ completed: 1, lost: 0 });
      expect((await q.counts('completed')).completed).toBe(1);
    });
    expect(runs).toEqual([1]);
    const [first, later] = bounds as [{ at: number; until: number }, { at: number; until: number }];
    expect(first.until).toBeGreaterThan(first.at);
    expect(first.until).toBeLessThanOrEqual(first.at + 2_000);
    expect(later.until).toBeGreaterThan(first.until);
  });

  it('(d) close() lets the in-flight job finish and claims nothing more', async () => {
    const q = await open<string>();
    const started: string[] = [];
    const finished: string[] = [];
    const worker = await Worker.start(q, async (job) => {
      started.push(job.payload);
      await sleep(300);
      finished.push(job.payload);
    }, { blockMs: 50, maintenanceMs: 20 });
    await q.enqueue('in-flight');
    await until(() => started.length === 1, 'the first job to start');
    const closing = worker.close();
    const { id: duringClose } = await q.enqueue('during-close');
    await closing;
    expect(finished).toEqual(['in-flight']);
    expect(worker.stats().completed).toBe(1);
    const { id: afterClose } = await q.enqueue('after-close');
    await sleep(300);
    expect(started).toEqual(['in-flight']);
    expect(await q.getState(duringClose)).toBe('pending');
    expect(await q.getState(afterClose)).toBe('pending');
    expect(await q.counts('pending', 'active', 'completed')).toEqual({ pending: 2, active: 0, completed: 1 });
  });

  it('(e) fires the cancel token of a handler that outlives closeTimeoutMs', async () => {
    const q = await open<string>();
    let token: CancelToken | undefined;
    const worker = await Worker.start(q, (_job, ctx) => {
      token = ctx.cancel;
      return new Promise(() => undefined);
    }, { closeTimeoutMs: 100, blockMs: 50 });
    const { id } = await q.enqueue('stuck');
    await until(() => token !== undefined, 'the handler to start');
    expect(token?.check()).toEqual({ cancelled: false });
    const t0 = Date.now();
    await worker.close();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    expect(token?.check()).toEqual({ cancelled: true, reason: 'worker closing' });
    expect(token?.signal.aborted).toBe(true);
    expect(await q.getState(id)).toBe('active');
  });

  it('(f) resumes after CLIENT KILL drops its sockets, completing every job without a restart', async () => {
    const q = await open<number>(ownConn);
    const seen = new Set<number>();
    await withWorker(q, async (job) => {
      await sleep(20);
      seen.add(job.payload);
    }, { concurrency: 4, leaseMs: 500, maintenanceMs: 50, blockMs: 100 }, async () => {
      await admit(q, 0, 40);
      await until(() => seen.size >= 8, 'some jobs to complete');
      const admin = own.client();
      try {
        // Our connection and the worker's wake connection; the admin client itself is skipped.
        expect(Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'normal'))).toBeGreaterThanOrEqual(2);
      } finally {
        admin.disconnect();
      }
      expect(seen.size).toBeLessThan(40);
      await admit(q, 40, 20);
      await until(async () => (await q.counts('completed')).completed === 60, 'all 60 jobs to complete', 15_000);
    });
    expect(seen.size).toBe(60);
    expect(ownConn.stats().reconnects).toBeGreaterThanOrEqual(1);
    expect(await q.counts('pending', 'active', 'scheduled', 'dead')).toEqual({ pending: 0, active: 0, scheduled: 0, dead: 0 });
  });

  it('(g) refuses invalid options in Worker.start before opening anything', async () => {
    const q = await open<string>(ownConn);
    const clientsBefore = field(await info(own, 'clients'), /^connected_clients:(\d+)/m);
    const sent = ownConn.stats().commands;
    const bad: WorkerOptions[] = [
      { concurrency: 0 },
      { concurrency: 1.5 },
      { leaseMs: -1 },
      { source: 'x' as 'flat' },
      { maxAttempts: 0 },
      { extendEveryMs: 0 },
      { closeTimeoutMs: -1 },
      // Would fail every stalled sweep of a running worker, so expired leases would never be recovered.
      { stalled: { maxStalled: 0 } },
      // A hand-built curve (plain JavaScript, or a cast): every retry would be refused by the wire.
      { backoff: { type: 'fixed', ms: -1 } },
    ];
    const accepted: string[] = [];
    for (const options of bad) {
      const started = Worker.start(q, () => undefined, options);
      const outcome = await started.then(
        async (worker) => {
          await worker.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      if (!(outcome instanceof InvalidArgumentError)) accepted.push(`${JSON.stringify(options)} -> ${String(outcome)}`);
    }
    expect(accepted).toEqual([]);
    expect(ownConn.stats().commands).toBe(sent);
    // The INFO probe itself is one connection, as before.
    expect(field(await info(own, 'clients'), /^connected_clients:(\d+)/m)).toBe(clientsBefore);
  });

  it('(h) refuses bad queue names, malformed ids and unencodable payloads before any write', async () => {
    const dbsize = async (): Promise<number> => Number(await ownConn.command('DBSIZE'));
    const keysBefore = await dbsize();
    for (const name of ['', 'a b', 'emq', 'x'.repeat(129), 'a{b}', '{q}', 'a:b', 'é']) {
      // A port nobody listens on: a name checked after connecting would fail with ConnectError instead.
      expectError(await rejection(Queue.open(name, { connect: { host: '127.0.0.1', port: 1 } })), InvalidNameError);
      expectError(await rejection(Queue.open(name, { connection: ownConn })), InvalidNameError);
    }
    const q = await open<unknown>(ownConn);
    expectError(await rejection(q.enqueue('x', { id: 'JOB-not-an-id' })), MalformedIdError);
    expectError(await rejection(q.enqueue(undefined)), CodecError);
    expectError(await rejection(q.enqueue(10n)), CodecError);
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expectError(await rejection(q.enqueue(cyclic)), CodecError);
    // One bad item refuses the whole batch before anything is sent.
    expectError(await rejection(q.enqueueMany([{ payload: 1 }, { payload: 2, id: 'nope' }])), MalformedIdError);
    expect(await dbsize()).toBe(keysBefore);
  });

  it('(i) refuses to remove a job a worker is running (LockedError), and the job completes', async () => {
    const q = await open<string>();
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await withWorker(q, () => gate, { blockMs: 50 }, async () => {
      const { id } = await q.enqueue('busy');
      await until(async () => (await conn.command('EXISTS', q.keys.jobSub(id, 'lock'))) === 1, 'the lock marker');
      expectError(await rejection(q.remove(id)), LockedError);
      expect(await q.getState(id)).toBe('active');
      release?.();
      await until(async () => (await q.counts('completed')).completed === 1, 'the job to complete');
      expect(await conn.command('EXISTS', q.keys.job(id))).toBe(0);
      // A marker left behind must at least expire.
      const ttl = Number(await conn.command('PTTL', q.keys.jobSub(id, 'lock')));
      expect(ttl === -2 || ttl > 0, `marker PTTL ${ttl}`).toBe(true);
    });
  });

  it('(i3) lets remove() delete a job re-admitted under the id of a job a worker already completed', async () => {
    const q = await open<string>();
    const id = mintId('JOB');
    await withWorker(q, () => 'done', { blockMs: 50 }, async () => {
      await q.enqueue('first run', { id });
      await until(async () => (await q.counts('completed')).completed === 1, 'the first run to complete');
    });
    // Completion deleted the row, so the same id admits a fresh job that no worker holds.
    expect((await q.enqueue('second run', { id })).status).toBe('enqueued');
    await q.remove(id);
    expect(await q.getState(id)).toBe('absent');
  });

  it('(i2) keeps refusing remove() while the new holder runs a job whose old holder lost its lease', async () => {
    const q = await open<string>();
    let stolen: (() => void) | undefined;
    const newHolderGate = new Promise<void>((resolve) => (stolen = resolve));
    const oldHolder = await Worker.start(q, async (_job, ctx) => {
      // Runs until its lease is found lost by the heartbeat, then gives up.
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      throw new Error('gave up');
    }, { leaseMs: 1_000, extendEveryMs: 200, blockMs: 50 });
    try {
      const { id } = await q.enqueue('contested');
      await until(() => oldHolder.running === 1, 'the first holder to start');
      const newHolder = await Worker.start(q, () => newHolderGate, { leaseMs: 30_000, blockMs: 50 });
      try {
        // What a reap after a stall does, done by hand so the old holder cannot extend in between.
        const k = q.keys;
        await conn.pipeline([['MULTI'], ['ZREM', k.active, id], ['ZADD', k.pending, 0, id], ['HSET', k.job(id), 'state', 'pending'], ['LPUSH', k.wake, '1'], ['EXEC']]);
        await until(() => newHolder.running === 1, 'the new holder to claim the job');
        await until(() => oldHolder.stats().lost === 1, 'the old holder to be fenced out');
        await sleep(50);
        expect(await conn.command('HGET', k.job(id), 'attempts')).toBe('2');
        expect(await q.getState(id)).toBe('active');
        // The new holder's presence marker must survive the old holder's clean-up.
        expect(await conn.command('GET', k.jobSub(id, 'lock'))).toBe('2');
        expectError(await rejection(q.remove(id)), LockedError);
      } finally {
        stolen?.();
        await newHolder.close();
      }
    } finally {
      await oldHolder.close();
    }
  });

  it('(j) an idle worker with 50 slots parks on the wake list instead of polling', async () => {
    const q = await open<string>(ownConn);
    const commandstats = async (): Promise<{ evalsha: number; blpop: number }> => {
      const text = await info(own, 'commandstats');
      return { evalsha: field(text, /^cmdstat_evalsha:calls=(\d+)/m), blpop: field(text, /^cmdstat_blpop:calls=(\d+)/m) };
    };
    let done = 0;
    await withWorker(q, () => {
      done++;
    }, { concurrency: 50, blockMs: 200 }, async () => {
      await sleep(300); // past the start-up claims
      const before = await commandstats();
      await sleep(1_500);
      const after = await commandstats();
      const evalsha = after.evalsha - before.evalsha;
      expect(evalsha).toBeLessThan(40);
      expect(after.blpop - before.blpop).toBeGreaterThanOrEqual(3);
      // Still alive: a job is picked up promptly.
      await q.enqueue('wake up');
      await until(() => done === 1, 'the parked worker to run a job', 1_000);
    });
  });
});
