/**
 * Step jobs that wait for children they add themselves (`ctx.addChildren` and
 * `ctx.moveToWaitingChildren`), and the index that counts parents awaiting children. Same-queue and
 * cross-queue children, the fail-parent and ignore policies, priority across the wait, a stale
 * token refused.
 */
import { Connection, InvalidArgumentError, StaleError, StateError, type JobId } from '@echo/protocol/queue';
import { uniqueName, useRedis, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker, type ClaimedJob } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

const fast = { maintenanceMs: 20, blockMs: 50, maxAttempts: 1, onError: () => undefined } as const;

async function open(prefix = 'step'): Promise<Queue<string>> {
  return Queue.open<string>(uniqueName(prefix), { connection: conn });
}

async function claimed(q: Queue<string>): Promise<ClaimedJob<string>> {
  const job = await q.leases().claim(30_000);
  if (job === undefined) throw new Error(`nothing to claim in ${q.name}`);
  return job;
}

const awaiting = async (q: Queue<string>): Promise<number> => (await q.counts('awaiting_children')).awaiting_children;

describe('a step job inside a Worker', () => {
  it('adds children, waits for them, and runs again with their results (same queue)', async () => {
    const q = await open();
    const { id } = await q.enqueue('parent');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runs: { attempts: number; waited: boolean; values: Record<string, string> }[] = [];
    const worker = await Worker.start(
      q,
      async (job, ctx) => {
        if (job.payload !== 'parent') {
          await gate;
          return `r-${job.payload}`;
        }
        if (runs.length === 0) {
          const children = await ctx.addChildren([{ payload: 'a' }, { payload: 'b' }]);
          expect(children).toHaveLength(2);
          runs.push({ attempts: job.attempts, waited: await ctx.moveToWaitingChildren(), values: {} });
          return 'dropped';
        }
        runs.push({ attempts: job.attempts, waited: await ctx.moveToWaitingChildren(), values: await ctx.childrenValues() });
        return 'done';
      },
      { ...fast, concurrency: 4 },
    );
    try {
      await waitFor(() => runs.length === 1, { what: 'the first step' });
      expect(runs[0]?.waited).toBe(true);
      expect(await q.getState(id)).toBe('awaiting_children');
      expect(await awaiting(q)).toBe(1);
      expect(await q.dependencies(id)).toBe(2);
      release();
      await waitFor(async () => (await q.getState(id)) === 'absent', { what: 'the parent to complete on its second step' });
    } finally {
      await worker.close();
    }
    expect(runs).toHaveLength(2);
    expect(runs[1]?.waited).toBe(false);
    expect(runs[1]?.attempts).toBe(2);
    expect(Object.values(runs[1]?.values ?? {}).sort()).toEqual(['r-a', 'r-b']);
    expect(await awaiting(q)).toBe(0);
    expect(worker.stats()).toMatchObject({ completed: 3, lost: 0 });
    // add_children marked it a flow parent: its fan-in keys went with its row.
    expect(await conn.command('EXISTS', q.keys.jobSub(id, 'dependencies'), q.keys.jobSub(id, 'processed'))).toBe(0);
  });

  it('waits for children in another queue: delivered through the outbox by the child queue worker', async () => {
    const parents = await open('step-p');
    const kids = await open('step-c');
    const { id } = await parents.enqueue('parent');
    const seen: Record<string, string>[] = [];
    let runs = 0;
    const parentWorker = await Worker.start(
      parents,
      async (_job, ctx) => {
        if (runs++ === 0) {
          await ctx.addChildren([{ payload: 'x', queue: kids.name }, { payload: 'y', queue: kids.name }]);
          if (await ctx.moveToWaitingChildren()) return undefined;
        }
        seen.push(await ctx.childrenValues());
        return 'parent-done';
      },
      fast,
    );
    const childWorker = await Worker.start(kids, (job) => `r-${job.payload}`, fast);
    try {
      await waitFor(async () => (await parents.getState(id)) === 'absent', { what: 'the cross-queue parent to finish', timeoutMs: 8000 });
    } finally {
      await Promise.all([parentWorker.close(), childWorker.close()]);
    }
    expect(seen).toHaveLength(1);
    expect(Object.values(seen[0] ?? {}).sort()).toEqual(['r-x', 'r-y']);
    expect(await awaiting(parents)).toBe(0);
  });

  it('works in a BatchWorker: a moved member is not completed by the batch', async () => {
    const q = await open();
    const { id } = await q.enqueue('parent');
    let steps = 0;
    const worker = await BatchWorker.start(
      q,
      async (jobs, contexts) => {
        for (const job of jobs) {
          const ctx = contexts.get(job.id);
          if (ctx === undefined) throw new Error('no context');
          if (job.payload === 'parent' && steps++ === 0) {
            await ctx.addChildren([{ payload: 'a' }]);
            await ctx.moveToWaitingChildren();
          }
        }
        return 'ok' as const;
      },
      { ...fast, size: 4 },
    );
    try {
      await waitFor(async () => (await q.getState(id)) === 'absent', { what: 'the batch parent to finish' });
    } finally {
      await worker.close();
    }
    expect(steps).toBe(2);
  });
});

describe('add_children and wait_children on the wire', () => {
  it('keeps the parent priority across the wait, and releases it at zero into pending', async () => {
    const q = await open();
    const parent = await q.enqueue('parent', { priority: 5 });
    const job = await claimed(q);
    expect(job.id).toBe(parent.id);
    const kids = await q.leases().addChildren(job, [{ payload: 'k1' }, { payload: 'k2', ignoreDependencyOnFailure: true }]);
    expect(await q.leases().waitForChildren(job)).toBe(2);
    expect(await awaiting(q)).toBe(1);
    expect(await conn.command('ZSCORE', q.keys.active, job.id)).toBeNull();
    expect(await conn.command('EXISTS', q.keys.jobSub(job.id, 'lock'))).toBe(0);
    const first = await claimed(q);
    const second = await claimed(q);
    expect(new Set([first.id, second.id])).toEqual(new Set(kids.map((k) => k.id)));
    // An id that sorts before every minted one: at equal scores it would be claimed first.
    const low = await q.enqueue('low', { id: 'JOB00000000001' });
    await q.leases().complete(first.id === kids[0]?.id ? first : second, 'ok');
    const ignored = first.id === kids[0]?.id ? second : first;
    expect(await q.leases().retry(ignored, 0, 1, 'boom')).toBe('dead');
    expect(await awaiting(q)).toBe(0);
    expect(Number(await conn.command('ZSCORE', q.keys.pending, parent.id))).toBe(-5);
    // Priority first: the parent comes back ahead of a job that sorts before it.
    const again = await claimed(q);
    expect(again).toMatchObject({ id: parent.id, attempts: 2 });
    expect(await q.leases().waitForChildren(again)).toBe(0);
    expect(await q.ignoredFailures(parent.id)).toEqual({ [ignored.id]: 'boom' });
    expect((await claimed(q)).id).toBe(low.id);
  });

  it('fails a waiting parent under fail-parent, cross-queue, and takes it out of the index', async () => {
    const parents = await open('step-p');
    const kids = await open('step-c');
    await parents.enqueue('parent');
    const job = await claimed(parents);
    await parents.leases().addChildren(job, [{ payload: 'doomed', queue: kids.name }]);
    expect(await parents.leases().waitForChildren(job)).toBe(1);
    expect(await awaiting(parents)).toBe(1);
    const child = await claimed(kids);
    expect(await kids.leases().retry(child, 0, 1, 'boom')).toBe('dead');
    expect((await kids.maintenance().deliverOutbox()).delivered).toBe(1);
    expect(await parents.getState(job.id)).toBe('dead');
    expect(await awaiting(parents)).toBe(0);
  });

  it('answers 0 with no child open and leaves the job active', async () => {
    const q = await open();
    await q.enqueue('alone');
    const job = await claimed(q);
    expect(await q.leases().waitForChildren(job)).toBe(0);
    expect(await q.getState(job.id)).toBe('active');
    await q.leases().complete(job);
    expect(await q.getState(job.id)).toBe('absent');
  });

  it("places a same-queue child by its own delay and priority, as addFlow does", async () => {
    const q = await open();
    await q.enqueue('parent');
    const job = await claimed(q);
    const [later, urgent, plain] = await q.leases().addChildren(job, [
      { payload: 'later', delayMs: 60_000 },
      { payload: 'urgent', priority: 5 },
      { payload: 'plain' },
    ]);
    expect(await q.getState(later?.id ?? '')).toBe('scheduled');
    expect(await q.dependencies(job.id)).toBe(3);
    // The urgent child is claimed first, ahead of the plain one added with it.
    expect((await claimed(q)).id).toBe(urgent?.id);
    expect((await claimed(q)).id).toBe(plain?.id);
  });

  it('refuses a stale token on both verbs and writes nothing', async () => {
    const q = await open();
    await q.enqueue('parent');
    const job = await claimed(q);
    const stale = { ...job, attempts: job.attempts + 1 };
    const childId = 'JOB0Nb1VTbfnu9' as JobId;
    await expect(q.leases().addChildren(stale, [{ payload: 'c', id: childId }])).rejects.toBeInstanceOf(StaleError);
    expect(await conn.command('EXISTS', q.keys.job(childId), q.keys.jobSub(job.id, 'dependencies'))).toBe(0);
    await q.leases().addChildren(job, [{ payload: 'c' }]);
    await expect(q.leases().waitForChildren(stale)).rejects.toBeInstanceOf(StaleError);
    expect(await q.getState(job.id)).toBe('active');
    expect(await awaiting(q)).toBe(0);
  });

  it('refuses a duplicate same-queue child id (nothing added) and a lane job that would wait', async () => {
    const q = await open();
    await q.enqueue('plain');
    const { id: taken } = await q.enqueue('taken');
    await q.enqueueInLane('USR0Nb1VTbfnu4', 'lane-parent');
    const plain = await claimed(q);
    await expect(q.leases().addChildren(plain, [{ payload: 'c', id: taken }])).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await q.dependencies(taken)).toBe(0);
    const laneJob = await q.leases().laneClaim(30_000);
    if (laneJob === undefined) throw new Error('no lane job');
    await q.leases().addChildren(laneJob, [{ payload: 'c' }]);
    await expect(q.leases().waitForChildren(laneJob)).rejects.toBeInstanceOf(StateError);
    expect(await q.getState(laneJob.id)).toBe('active');
  });
});
