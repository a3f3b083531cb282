import { useRedis, uniqueName, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Connection } from '@echo/protocol/queue';
import { exponential, Queue, Worker, type ClaimedJob } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  return waitFor(check, { timeoutMs });
}

describe('Worker', () => {
  it('runs every job once with concurrency and leaves nothing behind', async () => {
    const queue = await Queue.open<{ n: number }>(uniqueName('w'), { connection: conn });
    const seen: number[] = [];
    const worker = await Worker.start(queue, async (job) => {
      seen.push(job.payload.n);
      await new Promise((r) => setTimeout(r, 1));
    }, { concurrency: 8 });
    await queue.enqueueMany(Array.from({ length: 200 }, (_, n) => ({ payload: { n } })));
    await until(() => seen.length === 200);
    await worker.close();
    expect(new Set(seen).size).toBe(200);
    expect(await queue.counts('pending', 'active', 'completed')).toEqual({ pending: 0, active: 0, completed: 200 });
    expect(worker.stats().completed).toBe(200);
  });

  it('hands a context whose verbs work taken off it: a destructured progress, log and leaseUntil', async () => {
    const queue = await Queue.open<string>(uniqueName('w'), { connection: conn });
    const { id } = await queue.enqueue('x');
    let seen: { leaseLeft: number; progress: unknown; logs: string[] } | undefined;
    const worker = await Worker.start(queue, async (_job, { progress, log, leaseUntil }) => {
      await progress(40);
      await log('one line');
      // Read while the job is held: a completed row is not kept by default.
      seen = { leaseLeft: leaseUntil() - Date.now(), progress: (await queue.getJob(id))?.progress, logs: await queue.getLogs(id) };
    });
    await until(() => worker.stats().completed === 1);
    await worker.close();
    expect(seen).toEqual({ leaseLeft: expect.any(Number) as number, progress: '40', logs: ['one line'] });
    expect(seen?.leaseLeft).toBeGreaterThan(0);
  });

  it('retries along the backoff curve and dead-letters at the cap with last_error kept', async () => {
    const queue = await Queue.open<string>(uniqueName('w'), { connection: conn });
    const attempts: number[] = [];
    const worker = await Worker.start(queue, (job: ClaimedJob<string>) => {
      attempts.push(job.attempts);
      throw new Error(`boom ${job.attempts}`);
    }, { maxAttempts: 3, backoff: exponential(1, 10), maintenanceMs: 20, blockMs: 50 });
    const { id } = await queue.enqueue('poison');
    await until(async () => (await queue.getState(id)) === 'dead');
    await worker.close();
    expect(attempts).toEqual([1, 2, 3]);
    const row = await queue.getJob(id);
    expect(row?.lastError).toBe('boom 3');
    expect(row?.state).toBe('dead');
    expect(worker.stats()).toMatchObject({ retried: 2, dead: 1, completed: 0 });
  });

  it('wakes a parked worker promptly when a job arrives', async () => {
    const queue = await Queue.open<string>(uniqueName('w'), { connection: conn });
    // Far longer than any wait below: a job that ran only after the block ran out would time out
    // the wait, and one that ran early enough was woken by its arrival, however busy the machine.
    const blockMs = 60_000;
    let doneAt = 0;
    const parkedBefore = await blockedClients();
    const worker = await Worker.start(queue, () => {
      doneAt = Date.now();
    }, { blockMs });
    try {
      await until(async () => (await blockedClients()) > parkedBefore);
      const sentAt = Date.now();
      await queue.enqueue('x');
      await until(() => doneAt > 0, 10_000);
      expect(doneAt - sentAt).toBeLessThan(blockMs / 4);
    } finally {
      await worker.close();
    }
  });

  it('runs a job already due at once while the application fakes setTimeout (sinon, vi.useFakeTimers)', async () => {
    const queue = await Queue.open<string>(uniqueName('w'), { connection: conn });
    const ran = { done: false };
    const parkedBefore = await blockedClients();
    // Far longer than the wait below: only the admission's due hint can get the job run.
    const worker = await Worker.start(queue, () => {
      ran.done = true;
    }, { blockMs: 60_000, maintenanceMs: 60_000 });
    try {
      await until(async () => (await blockedClients()) > parkedBefore);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      await queue.enqueue('late', { runAt: Date.now() - 5_000 });
      // setTimeout is faked: look again on each turn of the event loop, for at most 10 s.
      const giveUpAt = Date.now() + 10_000;
      while (!ran.done && Date.now() < giveUpAt) await new Promise((resolve) => setImmediate(resolve));
      expect(ran.done).toBe(true);
    } finally {
      vi.useRealTimers();
      await worker.close();
    }
  });
});

/** How many clients the server holds in a blocking command. */
async function blockedClients(): Promise<number> {
  return Number(/blocked_clients:(\d+)/.exec(String(await conn.command('INFO', 'clients')))?.[1]);
}

describe('Worker results', () => {
  it('fails the attempt of a handler that returns a value JSON cannot carry, with a typed error', async () => {
    const queue = await Queue.open<string>(uniqueName('w'), { connection: conn });
    const worker = await Worker.start(queue, () => 10n, { blockMs: 50, maxAttempts: 1, onError: () => undefined });
    const { id } = await queue.enqueue('x');
    await until(async () => (await queue.getState(id)) === 'dead');
    await worker.close();
    expect(await queue.counts('completed', 'dead')).toEqual({ completed: 0, dead: 1 });
    expect((await queue.getJob(id))?.lastError).toMatch(/^handler result cannot be encoded: /);
  });
});
