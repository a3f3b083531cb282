import { Connection } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

// A wall clock stepped under a running worker (NTP, a VM resume, an operator): the worker's lease
// bookkeeping runs on a monotonic clock, so neither direction of step changes what it does.
const HOUR = 3_600_000;
const realNow = Date.now.bind(Date);
let step = 0;

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url });
});
afterEach(() => {
  vi.restoreAllMocks();
  step = 0;
});
afterAll(async () => {
  await conn.close();
});

function stepClockOnDemand(): void {
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + step);
}

describe('a wall-clock step under a running worker', () => {
  it('forward an hour: the claims in flight still run, none is given up as late, each job runs once', async () => {
    const queue = await Queue.open(uniqueName('clock-fwd'), { connection: conn });
    stepClockOnDemand();
    const runs = new Map<string, number>();
    const errors: unknown[] = [];
    let started = 0;
    // Concurrency 4 claims ahead, so claims are on the wire when the 40th handler steps the clock.
    const worker = await Worker.start(queue, async (job) => {
      runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      if (++started === 40) step = HOUR;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }, { concurrency: 4, leaseMs: 5_000 });
    worker.on('error', (event) => errors.push(event.error));
    let completed = 0;
    worker.on('completed', () => completed++);
    await queue.enqueueMany(Array.from({ length: 200 }, (_, i) => ({ name: 'tick', payload: i })));
    await until(() => completed === 200, '200 completions', 60_000);
    await worker.close();
    expect(step).toBe(HOUR);
    expect(errors).toEqual([]);
    expect(runs.size).toBe(200);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  });

  it("back an hour: ctx.leaseUntil() still ends within one lease of the stepped Date.now()", async () => {
    const queue = await Queue.open(uniqueName('clock-back'), { connection: conn });
    stepClockOnDemand();
    const leaseMs = 5_000;
    const left: number[] = [];
    const worker = await Worker.start(queue, (_job, ctx) => {
      step = -HOUR;
      left.push(ctx.leaseUntil() - Date.now());
    }, { concurrency: 1, leaseMs });
    await queue.enqueue(1);
    await until(() => left.length === 1, 'the handler ran');
    await worker.close();
    // Before the step the bound was at most one lease ahead; a wall-clock bound would now read an hour more.
    expect(left[0]).toBeGreaterThan(0);
    expect(left[0]).toBeLessThanOrEqual(leaseMs);
  });
});
