import { GoneError, InvalidArgumentError, StateError } from '@echo/protocol/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressValue, Queue, ResultEncodingError, Worker, type WorkerOptions } from '../src/index.js';
import { expectError, until } from './worker-harness.js';

// Every worker here runs without a maintenance pump (`maintenanceMs: 0`) and with a long idle beat:
// only the due clock can release scheduled work, so each test fails without it.
/** No maintenance pump and a 60 s idle beat: a job run within seconds was woken at its due time. */
const QUIET: WorkerOptions = { maintenanceMs: 0, blockMs: 60_000, concurrency: 2 };
/** Far under the idle beat, with room for a loaded machine. */
const WOKEN_WITHIN_MS = 15_000;

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

async function open<T>(): Promise<Queue<T>> {
  return Queue.open<T>(`delays-${String(++n)}-${String(process.pid)}`, { connect: { host: server.host, port: server.port } });
}

describe('delays on time', () => {
  it('wakes an idle worker at the due time of a job scheduled while it was parked', async () => {
    const q = await open<string>();
    let resolveStart: (at: number) => void = () => undefined;
    const started = new Promise<number>((resolve) => (resolveStart = resolve));
    const worker = await Worker.start(q, () => resolveStart(Date.now()), QUIET);
    const enqueuedAt = Date.now();
    await q.enqueue('late', { delayMs: 300 });
    const at = await started;
    expect(at - enqueuedAt).toBeGreaterThanOrEqual(290);
    // Without a wake-up at the due time nothing would run before the 60 s idle beat.
    expect(at - enqueuedAt).toBeLessThan(WOKEN_WITHIN_MS);
    await worker.close();
    await q.close();
  });

  it('picks up work scheduled before the worker started, and retries on the backoff, not on a tick', async () => {
    const q = await open<string>();
    await q.enqueue('early', { delayMs: 150 });
    const attempts: number[] = [];
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const worker = await Worker.start(q, (job) => {
      attempts.push(Date.now());
      if (job.attempts < 2) throw new Error('once more');
      done();
    }, { ...QUIET, backoff: { type: 'fixed', ms: 200 } });
    await finished;
    expect(attempts).toHaveLength(2);
    expect((attempts[1] ?? 0) - (attempts[0] ?? 0)).toBeGreaterThanOrEqual(190);
    await worker.close();
    await q.close();
  });

  it('sends delayMs: 0 straight to pending', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('now', { delayMs: 0 });
    expect(await q.counts('pending', 'scheduled')).toEqual({ pending: 1, scheduled: 0 });
    expect(await q.getState(id)).toBe('pending');
    await q.close();
  });

  it('promote(id) runs a scheduled job now; changeDelay moves it; both refuse what is not scheduled', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('later', { delayMs: 3_600_000 });
    await q.promote(id);
    expect(await q.counts('pending', 'scheduled')).toEqual({ pending: 1, scheduled: 0 });
    expectError(await q.promote(id).catch((e: unknown) => e), StateError);
    expectError(await q.changeDelay(id, 10).catch((e: unknown) => e), StateError);
    expectError(await q.promote('JOB0Nb1VTbfnu4').catch((e: unknown) => e), GoneError);
    const other = await q.enqueue('other', { delayMs: 3_600_000 });
    expectError(await q.changeDelay(other.id, -5).catch((e: unknown) => e), InvalidArgumentError);
    expect(await q.counts('pending', 'scheduled')).toEqual({ pending: 1, scheduled: 1 });
    await q.close();
  });

  it('changeDelay to sooner wakes a parked worker at the new time', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('moved', { delayMs: 3_600_000 });
    let resolveStart: (at: number) => void = () => undefined;
    const started = new Promise<number>((resolve) => (resolveStart = resolve));
    const worker = await Worker.start(q, () => resolveStart(Date.now()), QUIET);
    const changedAt = Date.now();
    await q.changeDelay(id, 200);
    const at = await started;
    expect(at - changedAt).toBeGreaterThanOrEqual(190);
    expect(at - changedAt).toBeLessThan(WOKEN_WITHIN_MS);
    await worker.close();
    await q.close();
  });
});

describe('handler results that cannot be encoded', () => {
  it('fail the attempt with a typed error instead of completing the job', async () => {
    const q = await open<string>();
    const worker = await Worker.start(q, () => {
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      return cycle;
    }, { ...QUIET, maxAttempts: 1, onError: () => undefined });
    const { id } = await q.enqueue('cyclic');
    await until(async () => await q.getState(id) === 'dead', 'the job to be dead');
    const record = await q.getJob(id);
    expect(record?.lastError).toContain('cannot be encoded');
    expect(await q.counts('completed', 'dead')).toEqual({ completed: 0, dead: 1 });
    expect(new ResultEncodingError(new Error('x')).code).toBe('result_encoding');
    await worker.close();
    await q.close();
  });
});

describe('the delayed event', () => {
  it('is published when a job is admitted with a delay', async () => {
    const q = await open<string>();
    const events = await q.events();
    const seen = events.next((event) => event.event === 'delayed');
    const { id } = await q.enqueue('later', { delayMs: 60_000 });
    const event = await seen;
    expect(event).toEqual({ event: 'delayed', job: id, fields: { delayMs: '60000' } });
    await events.close();
    await q.close();
  });
});

describe('the progress event', () => {
  it('keeps the type of the value: a number stays a number, an object an object, text text', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('p');
    const events = await q.events();
    const values: unknown[] = [];
    let resolveThree: () => void = () => undefined;
    const three = new Promise<void>((resolve) => (resolveThree = resolve));
    events.on('progress', (event) => {
      values.push(progressValue(event));
      if (values.length === 3) resolveThree();
    });
    await q.updateProgress(id, 42);
    await q.updateProgress(id, { percent: 50, step: 'copy' });
    await q.updateProgress(id, '42');
    await three;
    expect(values).toEqual([42, { percent: 50, step: 'copy' }, '42']);
    await expect(q.updateProgress(id, Number.NaN)).rejects.toBeInstanceOf(InvalidArgumentError);
    await events.close();
    await q.close();
  });
});

describe('the removed event', () => {
  it('is published after a job is removed, with the state it was removed from', async () => {
    const q = await open<string>();
    const events = await q.events();
    const seen = events.next((event) => event.event === 'removed');
    const { id } = await q.enqueue('gone soon');
    await q.remove(id);
    expect(await seen).toEqual({ event: 'removed', job: id, fields: { state: 'pending' } });
    await events.close();
    await q.close();
  });
});
