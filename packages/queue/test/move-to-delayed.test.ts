import { Connection, InvalidArgumentError, UnknownOptionError } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker, type DelayUntil, type JobContext } from '../src/index.js';
import { expectError, rejection, until } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const quick = { maintenanceMs: 20, blockMs: 50 } as const;

/**
 * Runs one job whose first attempt calls `first` with its context, and answers the handler's
 * start times (local ms) once it ran twice, or fails after `timeoutMs`.
 */
async function twoRuns(first: (ctx: JobContext) => Promise<void>): Promise<number[]> {
  const queue = await Queue.open<string>(uniqueName('mtd'), { connection: conn });
  await queue.enqueue('step');
  const starts: number[] = [];
  const worker = await Worker.start(queue, async (_job, ctx) => {
    starts.push(Date.now());
    if (starts.length === 1) await first(ctx);
    return 'done';
  }, quick);
  try {
    await until(() => starts.length === 2, 'the moved job to run again');
  } finally {
    await worker.close();
  }
  return starts;
}

describe('ctx.moveToDelayed names its unit', () => {
  it("BullMQ's moveToDelayed(Date.now() + 200) throws at once, naming both forms, and parks nothing", async () => {
    const refusals: unknown[] = [];
    const starts = await twoRuns(async (ctx) => {
      // A JavaScript caller, or one coming from BullMQ, passes a timestamp.
      refusals.push(await rejection(ctx.moveToDelayed((Date.now() + 200) as unknown as DelayUntil)));
      await ctx.moveToDelayed({ at: Date.now() + 200 });
    });
    expect(refusals).toHaveLength(1);
    expectError(refusals[0], InvalidArgumentError);
    expect(String(refusals[0])).toMatch(/delayMs.*at/);
    const [a = 0, b = 0] = starts;
    // Ran again about 200 ms later, never years.
    expect(b - a).toBeGreaterThanOrEqual(150);
    expect(b - a).toBeLessThan(10_000);
  });

  it('{ delayMs } and a Date each run the job again about that much later', async () => {
    for (const move of [(ctx: JobContext) => ctx.moveToDelayed({ delayMs: 200 }), (ctx: JobContext) => ctx.moveToDelayed(new Date(Date.now() + 200))]) {
      const [a = 0, b = 0] = await twoRuns(move);
      expect(b - a).toBeGreaterThanOrEqual(150);
      expect(b - a).toBeLessThan(10_000);
    }
  });

  it('refuses a shape it does not know, with a hint for a peer name, and the job stays held', async () => {
    const refusals: unknown[] = [];
    const starts = await twoRuns(async (ctx) => {
      for (const bad of [{ delay: 200 }, {}, { delayMs: 1, at: 2 }, { delayMs: 1.5 }, { at: 'soon' }, new Date(Number.NaN), 'soon']) {
        refusals.push(await rejection(ctx.moveToDelayed(bad as unknown as DelayUntil)));
      }
      await ctx.moveToDelayed({ delayMs: 10 });
    });
    expect(starts).toHaveLength(2);
    expect(refusals).toHaveLength(7);
    for (const r of refusals) expectError(r, InvalidArgumentError);
    expectError(refusals[0], UnknownOptionError);
    expect((refusals[0] as UnknownOptionError).hint).toContain('delayMs');
  });
});
