import { Connection } from '@echo/protocol/queue';
import { useRedis, uniqueName, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, fixed, type BatchPartition } from '../src/index.js';

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

describe('BatchWorker', () => {
  it('settles each member on its own verdict; a missing verdict retries', async () => {
    const queue = await Queue.open<{ n: number }>(uniqueName('bw'), { connection: conn });
    const partitions: BatchPartition[] = [];
    const sizes: number[] = [];
    await queue.enqueueMany(Array.from({ length: 20 }, (_, n) => ({ payload: { n } })));
    const worker = await BatchWorker.start(
      queue,
      (jobs) => {
        sizes.push(jobs.length);
        const verdicts = new Map<string, 'ok' | { error: string } | { delay: number }>();
        for (const job of jobs) {
          if (job.attempts > 1) verdicts.set(job.id, 'ok');
          else if (job.payload.n === 3) verdicts.set(job.id, { error: 'bad three' });
          else if (job.payload.n === 4) verdicts.set(job.id, { delay: 400 });
          else if (job.payload.n !== 5) verdicts.set(job.id, 'ok');
        }
        return verdicts;
      },
      { size: 8, backoff: fixed(400), maintenanceMs: 20, blockMs: 50, onBatch: (p) => partitions.push(p) },
    );
    await until(async () => (await queue.counts('completed')).completed === 20);
    await worker.close();
    // The retried and delayed members are held back 400 ms, so the first pass is exactly 20 jobs
    // (in an order the two slots decide: one may run a batch it held ahead before the other's).
    expect(sizes.slice(0, 3).sort((a, b) => a - b)).toEqual([4, 8, 8]);
    const first = partitions.slice(0, 3);
    expect(first.flatMap((p) => p.completed)).toHaveLength(17);
    expect(first.flatMap((p) => p.retried)).toHaveLength(2);
    expect(first.flatMap((p) => p.delayed)).toHaveLength(1);
    expect(worker.stats()).toMatchObject({ completed: 20, retried: 2, delayed: 1, dead: 0 });
    expect(await queue.counts('pending', 'active', 'scheduled', 'dead')).toEqual({ pending: 0, active: 0, scheduled: 0, dead: 0 });
  });

  it('retries every member with the thrown reason when the handler throws', async () => {
    const queue = await Queue.open<string>(uniqueName('bw'), { connection: conn });
    const { id } = await queue.enqueue('a');
    const worker = await BatchWorker.start(queue, () => {
      throw new Error('whole batch failed');
    }, { maxAttempts: 1, blockMs: 50 });
    await until(async () => (await queue.getState(id)) === 'dead');
    await worker.close();
    expect((await queue.getJob(id))?.lastError).toBe('whole batch failed');
  });

  it('shapes batches: waits for minSize, or flushes what is there after the timeout', async () => {
    const queue = await Queue.open<number>(uniqueName('bw'), { connection: conn });
    const sizes: number[] = [];
    const worker = await BatchWorker.start(queue, (jobs) => {
      sizes.push(jobs.length);
      return Object.fromEntries(jobs.map((j) => [j.id, 'ok' as const]));
    }, { size: 50, shape: { minSize: 5, timeoutMs: 300, pollMs: 10 }, blockMs: 50 });
    await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
    await new Promise((r) => setTimeout(r, 100));
    expect(sizes).toEqual([]);
    await until(() => sizes.length === 1);
    expect(sizes).toEqual([3]);
    await queue.enqueueMany([1, 2, 3, 4, 5, 6].map((payload) => ({ payload })));
    await until(() => sizes.length === 2, 2000);
    expect(sizes[1]).toBeGreaterThanOrEqual(5);
    await worker.close();
  });

  it('refuses bad options before starting', async () => {
    const queue = await Queue.open<number>(uniqueName('bw'), { connection: conn });
    await expect(BatchWorker.start(queue, () => ({}), { size: 0 })).rejects.toThrow(/size/);
    await expect(BatchWorker.start(queue, () => ({}), { shape: { minSize: 0, timeoutMs: 10 } })).rejects.toThrow(/minSize/);
  });

  it('completeMany settles each member on its own token in one script', async () => {
    const queue = await Queue.open<number>(uniqueName('bw'), { connection: conn });
    await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
    const [a, b, c] = await queue.leases().claimBatch(3, 30_000, { markerTtlMs: 60_000 });
    await conn.command('DEL', queue.keys.job(c!.id));
    const before = conn.stats().evalshaCalls;
    const outcomes = await queue.leases().completeMany([a!, { id: b!.id, attempts: 7 }, c!]);
    expect(conn.stats().evalshaCalls - before).toBe(1);
    expect(outcomes).toEqual(['ok', 'stale', 'gone']);
    expect(await conn.command('EXISTS', queue.keys.job(a!.id), queue.keys.jobSub(a!.id, 'lock'))).toBe(0);
    expect(await queue.getState(b!.id)).toBe('active');
    // c's id stays in active without a row until the reaper drops it; nothing is recreated.
    expect(await queue.counts('completed', 'active')).toEqual({ completed: 1, active: 2 });
    expect(await queue.leases().completeMany([])).toEqual([]);
  });
});
