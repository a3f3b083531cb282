/**
 * Typed events on Worker and BatchWorker: completed (with the result), failed (with the error and
 * the outcome), stalled, drained, error and closed. Standalone.
 */
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, type JobId } from '@echo/protocol/queue';
import { BatchWorker, fixed, Queue, UnrecoverableError, Worker, type WorkerEvents } from '../src/index.js';
import { until } from './worker-harness.js';

let conn: Connection;
const opened: Queue[] = [];

beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  for (const q of opened) {
    const keys = (await q.connection.command('KEYS', `emq:{${q.name}}:*`)) as string[];
    if (keys.length > 0) await q.connection.command('DEL', ...keys);
  }
  await conn.close();
});

async function open<T>(): Promise<Queue<T>> {
  const q = await Queue.open<T>(uniqueName('we'), { connection: conn });
  opened.push(q);
  return q;
}

const quiet = { maintenanceMs: 20, blockMs: 50, onError: (): void => undefined };

describe('Worker events', () => {
  it('completed carries the result, failed the error and outcome; drained and closed follow', async () => {
    const q = await open<string>();
    const ok = await q.enqueue('ok');
    const bad = await q.enqueue('bad', { attempts: 2 });
    const worker = await Worker.start(
      q,
      (job) => {
        if (job.payload === 'bad') throw job.attempts === 1 ? new Error('first') : new UnrecoverableError('give up');
        return { shipped: job.id };
      },
      { ...quiet, backoff: fixed(0) },
    );
    const completed: WorkerEvents<string>['completed'][] = [];
    const failed: { id: JobId; message: string; outcome: string }[] = [];
    let drained = 0;
    let closed = 0;
    worker.on('completed', (e) => completed.push(e));
    worker.on('failed', (e) => failed.push({ id: e.job.id, message: (e.error as Error).message, outcome: e.outcome }));
    worker.on('drained', () => drained++);
    worker.on('closed', () => closed++);
    await until(() => completed.length === 1 && failed.length === 2 && drained > 0, 'both settled and the worker drained');
    expect(completed[0]?.job.id).toBe(ok.id);
    expect(completed[0]?.result).toEqual({ shipped: ok.id });
    expect(failed).toEqual([
      { id: bad.id, message: 'first', outcome: 'scheduled' },
      { id: bad.id, message: 'give up', outcome: 'dead' },
    ]);
    expect(closed).toBe(0);
    await worker.close();
    expect(closed).toBe(1);
  });

  it('error hears what onError hears; a throwing listener is reported, not thrown at the worker', async () => {
    const q = await open<string>();
    await q.enqueue('x', { attempts: 1 });
    const heard: unknown[] = [];
    const reported: unknown[] = [];
    const worker = await Worker.start(
      q,
      () => {
        throw new Error('x');
      },
      { ...quiet, backoff: () => Number.NaN, onError: (error) => reported.push(error) },
    );
    worker.on('error', (e) => heard.push(e.error));
    worker.on('failed', () => {
      throw new Error('listener bug');
    });
    try {
      await until(() => reported.some((e) => e instanceof Error && e.message === 'listener bug'), 'the listener throw reported');
      expect(heard.length).toBeGreaterThan(0);
      expect(reported).toEqual(expect.arrayContaining(heard));
      expect(worker.fatalError).toBeUndefined();
    } finally {
      await worker.close();
    }
  });

  it('stalled reports a lapsed lease the pump recovered', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('held');
    // Leased by someone who never settles: its lease lapses and the sweep hands it on.
    expect((await q.leases().claim(30))?.id).toBe(id);
    const stalled: WorkerEvents<string>['stalled'][] = [];
    const worker = await Worker.start(q, () => 'done', { ...quiet, stalled: { maxStalled: 3 } });
    worker.on('stalled', (e) => stalled.push(e));
    try {
      await until(() => stalled.length > 0, 'stalled event');
      expect(stalled[0]).toEqual({ id, outcome: 'recovered' });
    } finally {
      await worker.close();
    }
  });
});

describe('BatchWorker events', () => {
  it('completed and failed per member', async () => {
    const q = await open<string>();
    const a = await q.enqueue('a');
    const b = await q.enqueue('b', { attempts: 1 });
    const worker = await BatchWorker.start(q, () => ({ [a.id]: 'ok' as const, [b.id]: { error: 'nope' } }), { ...quiet, size: 10 });
    const completed: JobId[] = [];
    const failed: { id: JobId; outcome: string }[] = [];
    worker.on('completed', (e) => completed.push(e.job.id));
    worker.on('failed', (e) => failed.push({ id: e.job.id, outcome: e.outcome }));
    try {
      await until(() => completed.length === 1 && failed.length === 1, 'both settled');
    } finally {
      await worker.close();
    }
    expect(completed).toEqual([a.id]);
    expect(failed).toEqual([{ id: b.id, outcome: 'dead' }]);
  });
});

describe('Worker controls', () => {
  it('autorun: false claims nothing until run(); pause() stops this worker claiming, resume() goes on', async () => {
    const q = await open<string>();
    await q.enqueue('first');
    const seen: string[] = [];
    const worker = await Worker.start(q, (job) => void seen.push(job.payload), { ...quiet, autorun: false });
    try {
      // Nothing claims: the job is still pending after a round trip of our own.
      expect(await q.counts('pending', 'active')).toEqual({ pending: 1, active: 0 });
      const completed = new Promise<void>((resolve) => worker.once('completed', () => resolve()));
      worker.run();
      await completed;
      worker.pause();
      expect(worker.isPaused).toBe(true);
      await q.enqueue('second');
      // A paused worker's claim would have taken it by now; a second worker proves it was claimable.
      const probe = await q.leases().claim(30_000);
      expect(probe?.payload).toBe('second');
      if (probe) await q.leases().complete(probe);
      await q.enqueue('third');
      const resumed = new Promise<void>((resolve) => worker.once('completed', () => resolve()));
      worker.resume();
      await resumed;
      expect(seen).toEqual(['first', 'third']);
    } finally {
      await worker.close();
    }
  });

  it('close() of a paused or never-run worker returns', async () => {
    const q = await open<string>();
    const idle = await Worker.start(q, () => undefined, { ...quiet, autorun: false });
    await idle.close();
    const paused = await Worker.start(q, () => undefined, quiet);
    paused.pause();
    await paused.close();
    expect(paused.fatalError).toBeUndefined();
  });
});
