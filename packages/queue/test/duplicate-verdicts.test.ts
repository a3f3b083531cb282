/**
 * A duplicate verdict's `id` names the job that exists (the one kept), on every admission path:
 * a business key, a dedup id, immediate and timed, one by one and in `enqueueMany`, a given id and a
 * lane. What a user does with a verdict (`getJob(r.id)`, `waitUntilFinished(r.id)`) must reach the
 * job that runs, the second time a program runs against one server included.
 */
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, mintId, type JobId } from '@echo/protocol/queue';
import { Queue, type EnqueueResult } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

/**
 * Runs job `id` to completion with `result`, promoting it first when it is scheduled; jobs claimed
 * ahead of it (claim order is not admission order across priorities and routes) complete too.
 */
async function runOne(q: Queue, id: JobId, result: string, done = new Set<string>()): Promise<void> {
  if (done.has(id)) return;
  if ((await q.getState(id)) === 'scheduled') await q.promote(id);
  for (;;) {
    const job = await q.leases().claim(30_000);
    if (job === undefined) throw new Error(`${id} was never claimed`);
    await q.leases().complete(job, result, { publish: true });
    done.add(job.id);
    if (job.id === id) return;
  }
}

/** The verdict names the kept job, and a user can follow it there. */
async function followsTheKeptJob(q: Queue, first: EnqueueResult, dup: EnqueueResult | undefined): Promise<void> {
  expect(dup).toEqual({ status: 'duplicate', id: first.id, existingId: first.id });
  if (dup === undefined) return;
  expect((await q.getJob(dup.id))?.id).toBe(first.id);
  const waiting = q.waitUntilFinished(dup.id, { timeoutMs: 20_000 });
  await runOne(q, first.id, 'done');
  await expect(waiting).resolves.toEqual({ id: first.id, result: 'done' });
}

describe('a duplicate verdict names the job that exists', () => {
  it('enqueue under a business key', async () => {
    const q = await Queue.open(uniqueName('dv'), { connection: conn });
    const first = await q.enqueue({ n: 1 }, { key: 'order-1' });
    await followsTheKeptJob(q, first, await q.enqueue({ n: 1 }, { key: 'order-1' }));
  });

  it('enqueue under a business key with a delay', async () => {
    const q = await Queue.open(uniqueName('dv'), { connection: conn });
    const first = await q.enqueue({ n: 1 }, { key: 'order-2', delayMs: 600_000 });
    await followsTheKeptJob(q, first, await q.enqueue({ n: 1 }, { key: 'order-2', delayMs: 600_000 }));
  });

  it('enqueue under a dedup id, immediate and timed', async () => {
    const q = await Queue.open(uniqueName('dv'), { connection: conn });
    const first = await q.enqueue({ n: 1 }, { dedupId: 'd-1' });
    await followsTheKeptJob(q, first, await q.enqueue({ n: 2 }, { dedupId: 'd-1' }));
    const timed = await q.enqueue({ n: 3 }, { dedupId: 'd-2', delayMs: 600_000 });
    await followsTheKeptJob(q, timed, await q.enqueue({ n: 4 }, { dedupId: 'd-2', delayMs: 600_000, dedupTtlMs: 60_000 }));
  });

  it('enqueue with a given id that exists', async () => {
    const q = await Queue.open(uniqueName('dv'), { connection: conn });
    const id = mintId('JOB') as JobId;
    const first = await q.enqueue({ n: 1 }, { id });
    await followsTheKeptJob(q, first, await q.enqueue({ n: 1 }, { id }));
  });

  it('enqueueMany: keyed items, a timed keyed item, and a plain item with a given id', async () => {
    const q = await Queue.open(uniqueName('dv'), { connection: conn });
    const id = mintId('JOB') as JobId;
    const items = [{ payload: 1, key: 'k-1' }, { payload: 2, dedupId: 'd-1', delayMs: 600_000 }, { payload: 3, id }];
    const first = await q.enqueueMany(items);
    const again = await q.enqueueMany(items.map((item) => ({ ...item })));
    expect(first.map((r) => r.status)).toEqual(['enqueued', 'enqueued', 'enqueued']);
    expect(again).toEqual(first.map((r) => ({ status: 'duplicate', id: r.id, existingId: r.id })));
    for (const dup of again) expect((await q.getJob(dup.id))?.id).toBe(dup.id);
    const waits = again.map((dup) => q.waitUntilFinished(dup.id, { timeoutMs: 20_000 }));
    const done = new Set<string>();
    for (const dup of again) await runOne(q, dup.id as JobId, 'done', done);
    await expect(Promise.all(waits)).resolves.toEqual(first.map((r) => ({ id: r.id, result: 'done' })));
  });

  it('enqueueInLane with a given id that exists', async () => {
    const q = await Queue.open(uniqueName('dv'), { connection: conn });
    const id = mintId('JOB') as JobId;
    const first = await q.enqueueInLane('tenant-a', { n: 1 }, { id });
    const dup = await q.enqueueInLane('tenant-a', { n: 1 }, { id });
    expect(dup).toEqual({ status: 'duplicate', id: first.id, existingId: first.id });
    expect((await q.getJob(dup.id))?.id).toBe(first.id);
  });

  it('the second run of a program: a business key whose job already completed answers that job, and its wait its result', async () => {
    const name = uniqueName('dv');
    const run = async (): Promise<EnqueueResult> => {
      const q = await Queue.open(name, { connection: conn, keep: { completed: { count: 100 } } });
      const paid = await q.enqueue({ order: 'o-1' }, { key: 'order-o-1' });
      if (paid.status === 'enqueued') await runOne(q, paid.id, 'charged');
      await expect(q.waitUntilFinished(paid.id, { timeoutMs: 20_000 })).resolves.toEqual({ id: paid.id, result: 'charged' });
      expect((await q.getJob(paid.id))?.state).toBe('completed');
      return paid;
    };
    const once = await run();
    const twice = await run();
    expect(twice).toEqual({ status: 'duplicate', id: once.id, existingId: once.id });
  });
});
