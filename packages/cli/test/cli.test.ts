import { Bus } from '@echo/bus';
import { Connection, type JobId } from '@echo/protocol';
import { Queue, Worker } from '@echo/queue';
import { freePort, startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, main, type CliIo } from '../src/index.js';

// Its own server: `emq queues` and `emq streams` list everything on it.
let server: RedisServer;
let conn: Connection;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

async function emq(args: readonly string[], options: { signal?: AbortSignal; env?: Record<string, string>; onOut?: (text: string) => void } = {}): Promise<Ran> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (text) => {
      out += text;
      options.onOut?.(text);
    },
    err: (text) => (err += text),
    env: { REDIS_URL: server.url, ...options.env },
    isTty: false,
    signal: options.signal ?? new AbortController().signal,
  };
  const code = await main(args, io);
  return { code, out, err };
}

async function jsonOf<T>(args: readonly string[]): Promise<T> {
  const ran = await emq([...args, '--json']);
  expect(ran).toMatchObject({ code: 0, err: '' });
  return JSON.parse(ran.out) as T;
}

/** Leaves `n` dead jobs in `queue` (one attempt allowed) and answers their ids. */
async function deadJobs(queue: Queue<{ n: number }>, n: number): Promise<JobId[]> {
  await queue.enqueueMany(Array.from({ length: n }, (_, i) => ({ payload: { n: i } })));
  const ids: JobId[] = [];
  for (const job of await queue.leases().claimBatch(n, 30_000)) {
    await queue.addLog(job.id, `tried ${job.payload.n}`);
    await queue.leases().retry(job, 0, 1, `boom ${job.payload.n}`);
    ids.push(job.id);
  }
  return ids;
}

describe('emq', () => {
  it('lists queues as a table and as JSON', async () => {
    const billing = await Queue.open('billing', { connection: conn });
    await billing.enqueueMany([{ payload: 1 }, { payload: 2 }]);
    await billing.enqueue(3, { delayMs: 60_000 });
    const table = await emq(['queues']);
    expect(table.code).toBe(EXIT.ok);
    expect(table.out).toMatch(/^QUEUE\s+STATE\s+PENDING\s+LANES\s+SCHEDULED\s+ACTIVE\s+DEAD\s+AWAITING\s+COMPLETED\s+FAILED$/m);
    expect(table.out).toMatch(/^billing\s+running\s+2\s+0\s+1\s+0\s+0\s+0\s+0\s+0$/m);
    const { queues } = await jsonOf<{ queues: { name: string; counts: Record<string, number> }[] }>(['queues']);
    expect(queues.find((q) => q.name === 'billing')?.counts).toEqual({ pending: 2, lanes: 0, active: 0, scheduled: 1, dead: 0, awaitingChildren: 0, completed: 0, failed: 0 });
  });

  it('shows stats with rates and workers, and refuses unknown or bad queues', async () => {
    const queue = await Queue.open<{ n: number }>('stats', { connection: conn });
    const worker = await Worker.start(queue, () => undefined, { blockMs: 100, name: 'stats-worker', concurrency: 3 });
    await queue.enqueueMany(Array.from({ length: 10 }, (_, n) => ({ payload: { n } })));
    const text = await emq(['stats', 'stats', '--interval', '100']);
    expect(text.code).toBe(EXIT.ok);
    expect(text.out).toMatch(/^completed\/s:\s+[\d.]+ \(over \d+ ms\)$/m);
    expect(text.out).toMatch(/^workers:\s+1 connected to the server \(all queues\)$/m);
    expect(text.out).toMatch(/^live workers:\s+1$/m);
    expect(text.out).toMatch(/^ {2}worker:\s+stats-worker \(worker, \S+ pid \d+\) 0\/3 held, last beat \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/m);
    const stats = await jsonOf<{ counts: { completed: number }; rates: { windowMs: number }; serverWorkers: number; workers: { name: string }[] }>(['stats', 'stats', '--interval', '100']);
    expect(stats.serverWorkers).toBe(1);
    expect(stats.workers.map((w) => w.name)).toEqual(['stats-worker']);
    expect(stats.rates.windowMs).toBeGreaterThanOrEqual(100);
    await worker.close();

    // Lane jobs are shown apart from pending: a default worker does not serve them.
    await queue.enqueueInLane('tenant-a', { n: 99 });
    expect((await emq(['stats', 'stats', '--interval', '100'])).out).toMatch(/^in lanes:\s+1 \(served only by a lane worker: source 'lanes'\)$/m);

    expect(await emq(['stats', 'nosuch'])).toMatchObject({ code: EXIT.notFound, out: '' });
    expect((await emq(['stats', 'nosuch'])).err).toMatch(/no queue named "nosuch"/);
    expect(await emq(['stats', 'bad name!'])).toMatchObject({ code: EXIT.usage });
  });

  it('pages through dead jobs and shows one with its logs', async () => {
    const queue = await Queue.open<{ n: number }>('pages', { connection: conn });
    const ids = await deadJobs(queue, 5);
    const first = await emq(['jobs', 'pages', '--state', 'dead', '--limit', '2']);
    expect(first.code).toBe(EXIT.ok);
    // Dead jobs list newest first.
    expect(first.out).toContain(`${ids[4]}  `);
    expect(first.out).toMatch(/boom 3$/m);
    expect(first.out).toMatch(/^1-2 of 5; next page: --offset 2$/m);
    const last = await jsonOf<{ total: number; jobs: { id: string; lastError: string; attempts: number }[] }>(['jobs', 'pages', '--state', 'dead', '--offset', '4']);
    expect(last.jobs.map((j) => [j.id, j.lastError, j.attempts])).toEqual([[ids[0], 'boom 0', 1]]);

    const job = await emq(['job', 'pages', ids[0]!]);
    expect(job.code).toBe(EXIT.ok);
    expect(job.out).toMatch(/^position:\s+dead$/m);
    expect(job.out).toMatch(/^last error:\s+boom 0$/m);
    expect(job.out).toContain('payload:\n{\n  "n": 0\n}\nlogs:\n  tried 0\n');
    expect(await jsonOf<{ logs: string[] }>(['job', 'pages', ids[1]!])).toMatchObject({ logs: ['tried 1'], position: 'dead' });

    expect(await emq(['jobs', 'pages', '--state', 'waiting'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['jobs', 'pages', '--limit', '0'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['job', 'pages', 'not-an-id'])).toMatchObject({ code: EXIT.usage });
    await queue.remove(ids[2]!);
    expect(await emq(['job', 'pages', ids[2]!])).toMatchObject({ code: EXIT.notFound });
  });

  it('shows a job by its lane name and with its decoded result', async () => {
    const queue = await Queue.open<string>('shown', { connection: conn, keep: { completed: { count: 10 } } });
    const { id: laned } = await queue.enqueueInLane('acme-corp', 'l');
    expect((await emq(['job', 'shown', laned])).out).toMatch(/^lane:\s+acme-corp$/m);
    const { id } = await queue.enqueue('r');
    const job = await queue.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    await queue.leases().complete(job, JSON.stringify({ total: 42 }));
    expect((await emq(['job', 'shown', id])).out).toMatch(/^result:\s+\{"total":42\}$/m);
    expect(await jsonOf<{ result: unknown }>(['job', 'shown', id])).toMatchObject({ result: { total: 42 } });
  });

  it('retries one dead job or all of them, each a reprocess', async () => {
    const queue = await Queue.open<{ n: number }>('retry', { connection: conn });
    const ids = await deadJobs(queue, 4);
    expect(await emq(['retry', 'retry', ids[0]!])).toEqual({ code: EXIT.ok, out: `retried ${ids[0]}\n`, err: '' });
    expect(await queue.getState(ids[0]!)).toBe('pending');
    const again = await emq(['retry', 'retry', ids[0]!]);
    expect(again.code).toBe(EXIT.failed);
    expect(again.err).toMatch(/^emq: .*not dead/);
    expect(await emq(['retry', 'retry'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['retry', 'retry', ids[1]!, '--all-dead'])).toMatchObject({ code: EXIT.usage });
    expect(await jsonOf<unknown>(['retry', 'retry', '--all-dead'])).toEqual({ ok: true, retried: 3, skipped: 0 });
    expect(await queue.counts('dead', 'pending')).toEqual({ dead: 0, pending: 4 });
  });

  it('pauses, resumes and drains through the queue transitions', async () => {
    const queue = await Queue.open('controls', { connection: conn });
    await queue.enqueueMany([{ payload: 1 }, { payload: 2 }]);
    await queue.enqueue(3, { delayMs: 60_000 });
    expect(await emq(['pause', 'controls'])).toMatchObject({ code: EXIT.ok, out: 'paused controls\n' });
    expect(await queue.leases().claim(1000)).toBeUndefined();
    expect(await emq(['resume', 'controls'])).toMatchObject({ code: EXIT.ok, out: 'resumed controls\n' });
    expect(await emq(['drain', 'controls'])).toMatchObject({ code: EXIT.ok, out: 'drained 2 job(s) from controls\n' });
    expect(await jsonOf<unknown>(['drain', 'controls', '--include-scheduled'])).toEqual({ ok: true, queue: 'controls', removed: 1 });
    // A typo never creates keys for a queue nobody runs.
    expect(await emq(['pause', 'controlz'])).toMatchObject({ code: EXIT.notFound });
    expect(await conn.command('EXISTS', (await Queue.open('controlz', { connection: conn })).keys.meta)).toBe(0);
  });

  it('lists streams and one stream\'s group lag', async () => {
    const audit = (await Bus.open('ledger', { connection: conn })).stream('audit');
    const ids = await audit.appendBatch(Array.from({ length: 6 }, (_, n) => ({ n: String(n) })));
    await audit.openGroup('billing', 'head');
    await conn.command('XREADGROUP', 'GROUP', 'billing', 'b1', 'COUNT', 2, 'STREAMS', audit.key, '>');
    const streams = await emq(['streams']);
    // The ids the app holds (what append returned), not the XADD ids under them.
    expect(streams.out).toMatch(new RegExp(`^ledger\\s+audit\\s+6\\s+1\\s+4\\s+${ids[5]}$`, 'm'));
    const lag = await emq(['lag', 'ledger', 'audit']);
    expect(lag.out).toMatch(/^GROUP\s+LAG\s+PENDING\s+CONSUMERS\s+LAST DELIVERED$/m);
    expect(lag.out).toMatch(new RegExp(`^billing\\s+4\\s+2\\s+1\\s+${ids[1]}$`, 'm'));
    expect(await jsonOf<{ groups: { name: string; lag: number }[] }>(['lag', 'ledger', 'audit'])).toMatchObject({ length: 6, groups: [{ name: 'billing', lag: 4, pending: 2 }] });
    expect(await emq(['lag', 'ledger', 'nope'])).toMatchObject({ code: EXIT.notFound });
  });

  it('watches a queue frame by frame until stopped', async () => {
    const queue = await Queue.open('watched', { connection: conn });
    await queue.enqueue('x');
    const counted = await emq(['watch', 'watched', '--interval', '50', '--count', '2', '--json']);
    expect(counted.code).toBe(EXIT.ok);
    const frames = counted.out.trim().split('\n').map((line) => JSON.parse(line) as { counts: { pending: number } });
    expect(frames.map((f) => f.counts.pending)).toEqual([1, 1]);

    const stop = new AbortController();
    // Stopped (as by Ctrl-C) once the first frame is out.
    const stopped = await emq(['watch', 'watched', '--interval', '50'], { signal: stop.signal, onOut: () => stop.abort() });
    expect(stopped.code).toBe(EXIT.ok);
    expect(stopped.out).toMatch(/^pending:\s+1$/m);
  });

  it('says so when the server cannot be reached, and on usage errors', async () => {
    const port = await freePort();
    const down = await emq(['queues', '--url', `redis://127.0.0.1:${port}`, '--timeout', '500']);
    expect(down.code).toBe(EXIT.unavailable);
    expect(down.err).toMatch(/^emq: /);
    expect(await emq(['frobnicate'])).toMatchObject({ code: EXIT.usage });
    expect((await emq(['frobnicate'])).err).toMatch(/unknown command "frobnicate"/);
    expect(await emq(['queues', '--bogus'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['job', 'q'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['queues', '--cluster', 'nonsense'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['queues', '--timeout', 'soon'])).toMatchObject({ code: EXIT.usage });
  });
});
