/**
 * How a worker runs a job under its own options: its attempts cap and backoff over the worker's, the
 * worker's backoff function, UnrecoverableError, timeoutMs, and step jobs (`moveToDelayed`).
 * Standalone: every option lives in the job's own row.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, type JobId } from '@echo/protocol/queue';
import type {
  Queue} from '../src/index.js';
import {
  BatchWorker,
  fixed,
  JobTimeoutError,
  UnrecoverableError,
  Worker,
  type ClaimedJob,
  type Handler,
  type WorkerOptions,
} from '../src/index.js';
import { queuesPerFile } from './queues-per-file.js';
import { expectError, rejection, until } from './worker-harness.js';

const { open } = queuesPerFile('jo');

async function withWorker<T>(q: Queue<T>, handler: Handler<T>, options: WorkerOptions, body: (worker: Worker<T>) => Promise<void>): Promise<void> {
  const worker = await Worker.start(q, handler, { maintenanceMs: 20, blockMs: 50, onError: () => undefined, ...options });
  try {
    await body(worker);
  } finally {
    await worker.close();
  }
}

const stateOf = async (q: Queue, id: JobId): Promise<string | undefined> => (await q.getJob(id))?.state;

describe('attempts, backoff and unrecoverable failures', () => {
  it("a job's own attempts cap overrides the worker's", async () => {
    const q = await open<string>();
    const once = await q.enqueue('once', { attempts: 1 });
    const usual = await q.enqueue('usual');
    const seen: Record<string, number> = {};
    await withWorker(
      q,
      (job) => {
        seen[job.id] = job.attempts;
        throw new Error(`boom ${String(job.attempts)}`);
      },
      { maxAttempts: 3, backoff: fixed(0) },
      async () => {
        await until(async () => (await stateOf(q, once.id)) === 'dead' && (await stateOf(q, usual.id)) === 'dead', 'both dead');
      },
    );
    expect(seen[once.id]).toBe(1);
    expect(seen[usual.id]).toBe(3);
    expect((await q.getJob(once.id))?.lastError).toBe('boom 1');
  });

  it("a job's own backoff overrides the worker's; the worker's function sees attempt, error and job", async () => {
    const q = await open<string>();
    // The worker's curve would park a retry for a minute; the job's own curve retries at once.
    const own = await q.enqueue('own', { backoff: fixed(0), attempts: 2 });
    const calls: { attempt: number; message: string; id: JobId; name: string | undefined }[] = [];
    const curve = (attempt: number, error: unknown, job: ClaimedJob<unknown>): number => {
      calls.push({ attempt, message: (error as Error).message, id: job.id, name: job.name });
      return 0;
    };
    const viaFunction = await q.enqueue('fn', { name: 'fn-job', attempts: 3 });
    await withWorker(
      q,
      (job) => {
        throw new Error(`no ${job.payload}`);
      },
      { backoff: curve },
      async () => {
        await until(async () => (await stateOf(q, own.id)) === 'dead' && (await stateOf(q, viaFunction.id)) === 'dead', 'both dead');
      },
    );
    expect(calls.filter((c) => c.id === own.id)).toEqual([]);
    expect(calls.filter((c) => c.id === viaFunction.id)).toEqual([
      { attempt: 1, message: 'no fn', id: viaFunction.id, name: 'fn-job' },
      { attempt: 2, message: 'no fn', id: viaFunction.id, name: 'fn-job' },
      { attempt: 3, message: 'no fn', id: viaFunction.id, name: 'fn-job' },
    ]);
  });

  it('a backoff function that answers no delay is reported and the job still retries', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('x', { attempts: 2 });
    const errors: unknown[] = [];
    await withWorker(
      q,
      () => {
        throw new Error('x');
      },
      { backoff: () => -5, onError: (error) => errors.push(error) },
      async () => {
        await until(async () => (await stateOf(q, id)) === 'dead', 'dead after the fallback delay');
      },
    );
    expect(errors.some((e) => e instanceof InvalidArgumentError)).toBe(true);
  });

  it('UnrecoverableError dead-letters at once, whatever attempts are left', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('x', { attempts: 10 });
    let runs = 0;
    await withWorker(
      q,
      () => {
        runs++;
        throw new UnrecoverableError('account deleted');
      },
      { maxAttempts: 10, backoff: fixed(0) },
      async (worker) => {
        await until(() => worker.stats().dead === 1, 'dead');
      },
    );
    expect(runs).toBe(1);
    expect(await q.getJob(id)).toMatchObject({ state: 'dead', attempts: 1, lastError: 'account deleted' });
  });
});

describe('timeoutMs', () => {
  it("aborts the handler's signal with JobTimeoutError and fails the attempt", async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('slow', { timeoutMs: 50, attempts: 1 });
    const reasons: unknown[] = [];
    await withWorker(
      q,
      (_job, ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            reasons.push(ctx.signal.reason);
            reject(ctx.signal.reason as Error);
          });
        }),
      {},
      async (worker) => {
        await until(() => worker.stats().dead === 1, 'dead by timeout');
      },
    );
    expect(reasons).toHaveLength(1);
    expectError(reasons[0], JobTimeoutError);
    expect((reasons[0] as JobTimeoutError).timeoutMs).toBe(50);
    expect((await q.getJob(id))?.lastError).toBe('job cancelled: timed out after 50 ms');
  });

  it('fails the attempt even when the handler ignores its signal, and drops the late result', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('stubborn', { timeoutMs: 50, attempts: 1 });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await withWorker(
      q,
      async () => {
        await held;
        return 'late';
      },
      {},
      async (worker) => {
        await until(() => worker.stats().dead === 1, 'dead while the handler still runs');
        expect(worker.stats().completed).toBe(0);
        release();
      },
    );
    expect(await stateOf(q, id)).toBe('dead');
  });
});

describe('step jobs', () => {
  it('moveToDelayed settles the job as delayed and the worker does not complete it', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('step');
    const steps: number[] = [];
    await withWorker(
      q,
      async (job, ctx) => {
        steps.push(job.attempts);
        if (steps.length === 1) {
          await ctx.moveToDelayed({ delayMs: 30 });
          // The job is no longer active: the move landed before the handler returned.
          expect(await q.getState(job.id)).toBe('scheduled');
          return 'ignored';
        }
        return 'done';
      },
      {},
      async (worker) => {
        await until(() => worker.stats().completed === 1, 'completed on the second step');
        expect(worker.stats()).toMatchObject({ delayed: 1, completed: 1, retried: 0, lost: 0 });
      },
    );
    expect(steps).toEqual([1, 2]);
    expect(await q.getState(id)).toBe('absent');
  });

  it('a throw after the move is reported, not retried; a second move or a bad time is refused', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('step');
    const errors: unknown[] = [];
    const refusals: unknown[] = [];
    await withWorker(
      q,
      async (_job, ctx) => {
        refusals.push(await rejection(ctx.moveToDelayed({ delayMs: -1 })));
        await ctx.moveToDelayed({ delayMs: 60_000 });
        refusals.push(await rejection(ctx.moveToDelayed({ delayMs: 10 })));
        throw new Error('after the move');
      },
      { onError: (error) => errors.push(error) },
      async (worker) => {
        await until(() => errors.length > 0, 'the late throw reported');
        expect(worker.stats()).toMatchObject({ delayed: 1, retried: 0, completed: 0 });
      },
    );
    expect(refusals).toHaveLength(2);
    for (const r of refusals) expectError(r, InvalidArgumentError);
    expect(await q.getJob(id)).toMatchObject({ state: 'scheduled', attempts: 1, lastError: undefined });
  });

  it('in a BatchWorker, a moved job is left out of the batch verdicts', async () => {
    const q = await open<string>();
    const a = await q.enqueue('a');
    const b = await q.enqueue('b');
    const worker = await BatchWorker.start(
      q,
      async (_jobs, contexts) => {
        await contexts.get(a.id)?.moveToDelayed({ delayMs: 60_000 });
        return 'ok' as const;
      },
      { size: 10, maintenanceMs: 20, blockMs: 50, onError: () => undefined },
    );
    try {
      await until(() => worker.stats().completed === 1, 'b completed');
    } finally {
      await worker.close();
    }
    expect(await q.getState(a.id)).toBe('scheduled');
    expect(await q.getState(b.id)).toBe('absent');
  });
});
