import { useRedis, uniqueName, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, KindError, mintId } from '@echo/protocol/queue';
import { BatchWorker, Queue, Worker } from '../src/index.js';

// One script call per chunk of admissions and per round of work: what a user sees is the same
// verdicts and the same per-job guarantees, for fewer calls on the wire.
let url: string;
let conn: Connection;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await Connection.connect({ url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

/** A queue on a connection of its own, so its wire counters count only this test's calls. */
async function ownQueue<T>(prefix: string): Promise<{ queue: Queue<T>; wire: Connection }> {
  const wire = await Connection.connect({ url, strictKeys: true });
  return { queue: await Queue.open<T>(uniqueName(prefix), { connection: wire }), wire };
}

describe('enqueueMany', () => {
  it('admits a chunk in one call; a wrong namespace and a duplicate are refused alone', async () => {
    const { queue, wire } = await ownQueue<number>('many');
    try {
      const taken = mintId('JOB');
      // The first call also loads the script (a NOSCRIPT resend); count from the second.
      await queue.enqueueMany([{ payload: 0, id: taken }]);
      const before = wire.stats().evalshaCalls;
      const items = [{ payload: 1 }, { payload: 2, id: mintId('USR') }, { payload: 3, id: taken }, { payload: 4 }];
      const verdicts = await queue.enqueueMany(items);
      expect(wire.stats().evalshaCalls - before).toBe(1);
      expect(verdicts.map((v) => v.status)).toEqual(['enqueued', 'failed', 'duplicate', 'enqueued']);
      const refused = verdicts[1];
      expect(refused?.status === 'failed' ? refused.error : undefined).toBeInstanceOf(KindError);
      expect(await queue.counts('pending')).toEqual({ pending: 3 });
      // The first payload stands for the duplicate; mint order is claim order.
      const claimed = await queue.leases().claimBatch(10, 1000);
      expect(claimed.map((j) => j.payload)).toEqual([0, 1, 4]);
      expect(await queue.enqueueMany([])).toEqual([]);
    } finally {
      await queue.close();
      await wire.close();
    }
  });

  it('sends one call per 1,000 items', async () => {
    const { queue, wire } = await ownQueue<number>('many');
    try {
      await queue.enqueueMany([{ payload: -1 }]);
      const before = wire.stats().evalshaCalls;
      const verdicts = await queue.enqueueMany(Array.from({ length: 2500 }, (_, i) => ({ payload: i })));
      expect(verdicts.every((v) => v.status === 'enqueued')).toBe(true);
      expect(wire.stats().evalshaCalls - before).toBe(3);
      expect(await queue.counts('pending')).toEqual({ pending: 2501 });
    } finally {
      await queue.close();
      await wire.close();
    }
  });
});

describe('completeAndClaim', () => {
  it('completes held jobs fenced on their tokens, then claims the next ones', async () => {
    const queue = await Queue.open<string>(uniqueName('round'), { connection: conn });
    await queue.enqueueMany(['a', 'b', 'c', 'd', 'e'].map((payload) => ({ payload })));
    const [a, b] = await queue.leases().claimBatch(2, 5000);
    if (!a || !b) throw new Error('nothing claimed');
    const round = await queue.leases().completeAndClaim([a, { ...b, attempts: b.attempts + 1 }], 2, 5000, { markerTtlMs: 10_000 });
    expect(round.completions).toEqual(['ok', 'stale']);
    expect(round.claimed.map((j) => [j.payload, j.attempts])).toEqual([['c', 1], ['d', 1]]);
    expect(await queue.getState(a.id)).toBe('absent');
    expect(await queue.getState(b.id)).toBe('active');
    expect(await queue.counts('pending', 'active', 'completed')).toEqual({ pending: 1, active: 3, completed: 1 });
    // The markers are written in the same step: a held job cannot be removed.
    await expect(queue.remove((round.claimed[0] ?? a).id)).rejects.toThrow();

    await queue.pause();
    const paused = await queue.leases().completeAndClaim(round.claimed, 5, 5000);
    expect(paused).toEqual({ completions: ['ok', 'ok'], claimed: [], limitedMs: 0, resent: false });
    expect(await queue.counts('pending', 'completed')).toEqual({ pending: 1, completed: 3 });
  });

  it('leaves a flow child for complete, which feeds its parent', async () => {
    const queue = await Queue.open<string>(uniqueName('round'), { connection: conn });
    const { id: parentId } = await queue.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child' }] });
    const [child] = await queue.leases().claimBatch(1, 5000);
    if (!child) throw new Error('nothing claimed');
    const round = await queue.leases().completeAndClaim([{ id: child.id, attempts: child.attempts }], 0, 5000);
    expect(round).toEqual({ completions: ['flow'], claimed: [], limitedMs: 0, resent: false });
    expect(await queue.getState(child.id)).toBe('active');
    await queue.leases().complete(child, 'done');
    expect(await queue.childrenValues(parentId)).toEqual({ [child.id]: 'done' });
  });
});

describe('coalescing', () => {
  it('a Worker settles and refills many slots per call, each job run once', async () => {
    const { queue, wire } = await ownQueue<number>('coalesce');
    try {
      await queue.enqueueMany(Array.from({ length: 400 }, (_, i) => ({ payload: i })));
      const before = wire.stats().evalshaCalls;
      const seen = new Map<number, number>();
      const worker = await Worker.start(queue, (job) => void seen.set(job.payload, (seen.get(job.payload) ?? 0) + 1), {
        concurrency: 20,
        maintenanceMs: 0,
      });
      await waitFor(() => worker.stats().completed === 400, { timeoutMs: 10_000 });
      await worker.close();
      expect(seen.size).toBe(400);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      // One by one this was two calls per job; a round serves many slots.
      expect(wire.stats().evalshaCalls - before).toBeLessThan(400);
      expect(await queue.counts('pending', 'active', 'completed')).toEqual({ pending: 0, active: 0, completed: 400 });
    } finally {
      await queue.close();
      await wire.close();
    }
  });

  it('a BatchWorker with several batches in flight runs every job once', async () => {
    const queue = await Queue.open<number>(uniqueName('coalesce'), { connection: conn });
    const seen = new Map<number, number>();
    let running = 0;
    let overlapped = false;
    const worker = await BatchWorker.start(
      queue,
      async (jobs): Promise<'ok'> => {
        running++;
        overlapped ||= running > 1;
        for (const job of jobs) seen.set(job.payload, (seen.get(job.payload) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return 'ok';
      },
      { size: 10, concurrency: 3 },
    );
    await queue.enqueueMany(Array.from({ length: 300 }, (_, i) => ({ payload: i })));
    await waitFor(() => worker.stats().completed === 300, { timeoutMs: 10_000 });
    await worker.close();
    expect(overlapped).toBe(true);
    expect(seen.size).toBe(300);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(await queue.counts('pending', 'active', 'completed')).toEqual({ pending: 0, active: 0, completed: 300 });
  });
});

describe('claiming ahead', () => {
  it('a Worker with short handlers holds the next job while one runs, and runs them in claim order', async () => {
    const queue = await Queue.open<number>(uniqueName('ahead'), { connection: conn });
    await queue.enqueueMany(Array.from({ length: 30 }, (_, i) => ({ payload: i })));
    const order: number[] = [];
    let mostActive = 0;
    const worker = await Worker.start(
      queue,
      async (job) => {
        order.push(job.payload);
        // The job running now, and the one claimed ahead for this slot.
        mostActive = Math.max(mostActive, (await queue.counts('active')).active);
      },
      { concurrency: 1, maintenanceMs: 0 },
    );
    await waitFor(() => worker.stats().completed === 30, { timeoutMs: 10_000 });
    await worker.close();
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(mostActive).toBe(2);
    expect(await queue.counts('pending', 'active', 'completed')).toEqual({ pending: 0, active: 0, completed: 30 });
  });

  it('stops claiming ahead once handlers are long: a job claimed ahead would wait out of other workers\' reach', async () => {
    const queue = await Queue.open<number>(uniqueName('ahead'), { connection: conn });
    await queue.enqueueMany(Array.from({ length: 12 }, (_, i) => ({ payload: i })));
    const activeLate: number[] = [];
    const worker = await Worker.start(
      queue,
      async (job) => {
        // The first rounds claim ahead (nothing is known of the handlers yet); from the sixth job
        // on only the two slots' own jobs are held.
        if (job.payload >= 6) activeLate.push((await queue.counts('active')).active);
        await new Promise((r) => setTimeout(r, 60));
      },
      { concurrency: 2, maintenanceMs: 0 },
    );
    await waitFor(() => worker.stats().completed === 12, { timeoutMs: 10_000 });
    await worker.close();
    expect(activeLate).toHaveLength(6);
    expect(Math.max(...activeLate)).toBeLessThanOrEqual(2);
  });

  it('a closing Worker runs the jobs it claimed ahead instead of leaving them leased', async () => {
    const queue = await Queue.open<number>(uniqueName('ahead'), { connection: conn });
    await queue.enqueueMany(Array.from({ length: 200 }, (_, i) => ({ payload: i })));
    let ran = 0;
    const worker = await Worker.start(queue, () => {
      ran++;
    }, { concurrency: 10, maintenanceMs: 0 });
    await waitFor(() => ran >= 50, { timeoutMs: 10_000 });
    await worker.close();
    const { pending, active, completed } = await queue.counts('pending', 'active', 'completed');
    expect(active).toBe(0);
    expect(completed).toBe(ran);
    expect(pending + completed).toBe(200);
  });
});

describe('a batch held ahead', () => {
  it('a BatchWorker with short batches holds the next batch while one runs, in claim order', async () => {
    const queue = await Queue.open<number>(uniqueName('ahead'), { connection: conn });
    await queue.enqueueMany(Array.from({ length: 40 }, (_, i) => ({ payload: i })));
    // Load the round's script first: a NOSCRIPT resend of the first round could land after the
    // second one and swap the batches they claim.
    await queue.leases().completeAndClaim([], 0, 1000);
    const order: number[] = [];
    let mostActive = 0;
    const worker = await BatchWorker.start(
      queue,
      async (jobs): Promise<'ok'> => {
        order.push(...jobs.map((job) => job.payload));
        // The batch running now, and the one held ahead (or claimed with the last settlement).
        mostActive = Math.max(mostActive, (await queue.counts('active')).active);
        return 'ok';
      },
      { size: 5, concurrency: 1, maintenanceMs: 0 },
    );
    await waitFor(() => worker.stats().completed === 40, { timeoutMs: 10_000 });
    await worker.close();
    expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(mostActive).toBe(10);
    expect(await queue.counts('pending', 'active', 'completed')).toEqual({ pending: 0, active: 0, completed: 40 });
  });
});

describe('claiming ahead and pause', () => {
  it('a paused Worker runs what it claimed ahead, then holds no job until resume()', async () => {
    const queue = await Queue.open<number>(uniqueName('ahead'), { connection: conn });
    await queue.enqueueMany(Array.from({ length: 300 }, (_, i) => ({ payload: i })));
    let ran = 0;
    const worker = await Worker.start(queue, () => {
      ran++;
    }, { concurrency: 10, maintenanceMs: 0 });
    await waitFor(() => ran >= 40, { timeoutMs: 10_000 });
    worker.pause();
    // Nothing stays leased to a paused worker: its spares ran, and it claimed nothing more.
    await waitFor(async () => (await queue.counts('active')).active === 0, { timeoutMs: 10_000 });
    const paused = await queue.counts('pending', 'completed');
    expect(paused.pending).toBeGreaterThan(0);
    expect(paused.pending + paused.completed).toBe(300);
    expect(worker.stats().completed).toBe(paused.completed);
    worker.resume();
    await waitFor(() => worker.stats().completed === 300, { timeoutMs: 10_000 });
    await worker.close();
    expect(ran).toBe(300);
  });
});
