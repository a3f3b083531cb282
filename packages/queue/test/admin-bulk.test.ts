import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, InvalidArgumentError, type JobId } from '@echo/protocol/queue';
import { Queue } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

/** Admits `n` jobs and kills each on its first attempt; answers their ids in mint order. */
async function morgue(queue: Queue<number>, n: number): Promise<JobId[]> {
  const ids = (await queue.enqueueMany(Array.from({ length: n }, (_, i) => ({ payload: i })))).map((r) => r.id as JobId);
  for (let i = 0; i < n; i++) {
    const job = await queue.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    expect(await queue.leases().retry(job, 0, 1, `boom ${String(job.payload)}`)).toBe('dead');
  }
  return ids;
}

describe('admin reads and bulk moves', () => {
  it('isPaused follows pause and resume', async () => {
    const queue = await Queue.open<number>(uniqueName('adm'), { connection: conn });
    expect(await queue.isPaused()).toBe(false);
    await queue.pause();
    expect(await queue.isPaused()).toBe(true);
    await queue.resume();
    expect(await queue.isPaused()).toBe(false);
  });

  it('a prioritized job keeps its priority when retryJobs or promote(id) puts it back in pending', async () => {
    const queue = await Queue.open<number>(uniqueName('adm'), { connection: conn });
    const dead = await queue.enqueue(1, { priority: 4 });
    const job = await queue.leases().claim(30_000);
    // Admitted first, so mint order alone would put it ahead of the other two.
    const plain = await queue.enqueue(3);
    expect(job?.id).toBe(dead.id);
    if (job === undefined) throw new Error('nothing to claim');
    expect(await queue.leases().retry(job, 0, 1, 'boom')).toBe('dead');
    const later = await queue.enqueue(2, { priority: 4, delayMs: 60_000 });
    expect(await queue.retryJobs({ state: 'dead', count: 10 })).toBe(1);
    await queue.promote(later.id);
    // Both come back ahead of the earlier job admitted without a priority, in mint order between them.
    const order = (await queue.leases().claimBatch(3, 30_000)).map((j) => j.id);
    expect(order).toEqual([dead.id, later.id, plain.id]);
  });

  it('lists dead jobs newest first, with their errors', async () => {
    const queue = await Queue.open<number>(uniqueName('adm'), { connection: conn });
    const ids = await morgue(queue, 5);
    const page = await queue.listJobs('dead', { limit: 3 });
    expect(page.total).toBe(5);
    expect(page.jobs.map((j) => j.id)).toEqual(ids.slice().reverse().slice(0, 3));
    expect(page.jobs[0]?.record?.lastError).toBe('boom 4');
  });

  it('retryJobs moves dead jobs back in bounded chunks, up to count', async () => {
    const queue = await Queue.open<number>(uniqueName('adm'), { connection: conn });
    const ids = await morgue(queue, 7);
    expect(await queue.retryJobs({ state: 'dead', count: 5, chunk: 2 })).toBe(5);
    expect(await queue.counts('dead', 'pending')).toEqual({ dead: 2, pending: 5 });
    const pending = await queue.listJobs('pending');
    expect(pending.jobs.map((j) => j.id)).toEqual(ids.slice(0, 5));
    expect(pending.jobs.map((j) => [j.record?.state, j.record?.lastError, j.record?.attempts])).toEqual(Array(5).fill(['pending', undefined, 1]));
    expect(await queue.retryJobs({ state: 'dead' })).toBe(2);
    expect(await queue.counts('dead', 'pending')).toEqual({ dead: 0, pending: 7 });
    // The next claim mints the next token: attempts go on from where they were.
    expect((await queue.leases().claim(30_000))?.attempts).toBe(2);
  });

  it('retryJobs refuses bad input and changes nothing', async () => {
    const queue = await Queue.open<number>(uniqueName('adm'), { connection: conn });
    await morgue(queue, 1);
    await expect(queue.retryJobs({ state: 'active' as 'dead' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(queue.retryJobs({ state: 'dead', count: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(queue.retryJobs({ state: 'dead', chunk: 1001 })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await queue.counts('dead')).toEqual({ dead: 1 });
  });

  it('clean deletes dead jobs older than the age, oldest first, up to the limit, and nothing live', async () => {
    const queue = await Queue.open<number>(uniqueName('adm'), { connection: conn });
    const ids = await morgue(queue, 5);
    expect(await queue.clean({ state: 'dead', olderThanMs: 3_600_000 })).toBe(0);
    expect(await queue.clean({ state: 'dead', olderThanMs: 0, limit: 2 })).toBe(2);
    const left = await queue.listJobs('dead');
    expect(left.jobs.map((j) => j.id)).toEqual(ids.slice(2).reverse());
    expect(await queue.getJob(ids[0] ?? '')).toBeUndefined();
    const live = await queue.enqueue(9);
    expect(await queue.clean({ state: 'dead', olderThanMs: 0 })).toBe(3);
    expect(await queue.counts('dead', 'pending')).toEqual({ dead: 0, pending: 1 });
    expect(await queue.getState(live.id)).toBe('pending');
    await expect(queue.clean({ state: 'dead', olderThanMs: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
