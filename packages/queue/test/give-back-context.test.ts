/**
 * ctx.giveBack: a handler hands its job back to the queue as if it had not been claimed. It goes
 * back first among its equals (its admission order kept), no failure counted, and the worker
 * leaves it alone when the handler ends.
 */
import { InvalidArgumentError } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { rejection, until } from './worker-harness.js';

describe('ctx.giveBack', () => {
  it('puts the job back ahead of the jobs admitted after it, pending, without a failure; it runs again', async () => {
    const server = await useRedis();
    const q = await Queue.open<string>(uniqueName('give-back'), { connect: { url: server.url } });
    for (const name of ['a', 'b', 'c']) await q.enqueue(name, { priority: 5 });
    const seen: string[] = [];
    const refusals: unknown[] = [];
    let order: string[] = [];
    const worker = await Worker.start(q, async (job, ctx) => {
      seen.push(job.payload);
      if (seen.length === 1) {
        await ctx.giveBack();
        refusals.push(await rejection(ctx.giveBack()));
        // Read before this handler ends: the pending jobs, in claim order.
        order = (await q.listJobs('pending')).jobs.map((row) => row.record?.payload ?? '?');
        // The worker leaves the job alone after the move: this failure is not counted.
        throw new Error('ignored after the move');
      }
      return 'ok';
    }, { maintenanceMs: 20, blockMs: 50, onError: () => undefined });
    await until(() => seen.length === 4, 'every job to run');
    await worker.close();
    // Whatever the worker claimed ahead is not listed; what is listed keeps admission order with a first.
    expect(order).toEqual(seen[1] === 'b' ? ['a', 'c'] : ['a', 'b', 'c']);
    expect(seen.filter((name) => name === 'a')).toHaveLength(2);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(InvalidArgumentError);
    expect(worker.stats()).toMatchObject({ completed: 3, retried: 0, dead: 0 });
    await q.close();
  });
});
