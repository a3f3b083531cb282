/**
 * Chaos: a producer ten times faster than its workers. The backlog grows in Redis by the
 * documented bytes per pending job (nothing is dropped or refused), and once the producer stops a
 * full-speed worker drains the deep queue as fast as its twin drains a shallow one beside it.
 * `ECHO_BACKPRESSURE_S` sets the overload phase (default 15 s; 60 s for the long run).
 */
import { Connection } from '@echo/protocol/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { sleep, until } from './helpers.js';

const OVERLOAD_S = Number(process.env.ECHO_BACKPRESSURE_S ?? 15);
/** The slow workers: 2 at a time, 20 ms each, about 100 jobs/s. */
const SLOW = { concurrency: 2, handlerMs: 20 };
/** The producer: a batch of 50 every 50 ms, about 1,000 jobs/s. */
const BATCH = 50;
const EVERY_MS = 50;

let server: RedisServer;
let conn: Connection;

beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
});

afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function usedMemory(): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(String(await conn.command('INFO', 'memory')))?.[1]);
}

/** A no-op worker (concurrency 32) that records what it ran. */
function fastWorker(queue: Queue<number>, ran: Set<string>): Promise<Worker<number>> {
  return Worker.start(queue, (job) => void ran.add(job.id), { concurrency: 32, blockMs: 100 });
}

describe('chaos: a producer ten times faster than its workers', () => {
  it('holds the backlog at the documented size, loses nothing, and drains at full speed', async () => {
    const queue = await Queue.open<number>('bp-deep', { connection: conn });
    const ran = new Set<string>();
    const slow = await Worker.start(
      queue,
      async (job) => {
        ran.add(job.id);
        await sleep(SLOW.handlerMs);
      },
      { concurrency: SLOW.concurrency, blockMs: 100 },
    );
    const memBefore = await usedMemory();
    const heapBefore = process.memoryUsage().heapUsed;
    const acked = new Set<string>();
    const refused: unknown[] = [];
    const stopAt = Date.now() + OVERLOAD_S * 1000;
    let n = 0;
    while (Date.now() < stopAt) {
      const tick = Date.now();
      const results = await queue.enqueueMany(Array.from({ length: BATCH }, () => ({ payload: n++ })));
      for (const r of results) {
        if (r.status === 'failed') refused.push(r.error);
        else acked.add(r.id);
      }
      await sleep(Math.max(0, EVERY_MS - (Date.now() - tick)));
    }
    await slow.close();
    const { pending } = await queue.counts('pending');
    const memAfter = await usedMemory();
    const bytesPerPending = (memAfter - memBefore) / Math.max(1, pending);
    const producedRate = acked.size / OVERLOAD_S;
    const slowRate = ran.size / OVERLOAD_S;

    const backlog = acked.size - ran.size;
    // The reference: the same fast worker on a shallow queue, run beside the deep one so both
    // rates are taken in one window, on one server, under whatever else the machine is doing.
    const shallow = await Queue.open<number>('bp-shallow', { connection: conn });
    const shallowCount = 3_000;
    for (let i = 0; i < shallowCount; i += 1000) await shallow.enqueueMany(Array.from({ length: 1000 }, (_, j) => ({ payload: i + j })));
    const shallowRan = new Set<string>();
    const ranBefore = ran.size;
    const started = performance.now();
    const twins = await Promise.all([fastWorker(shallow, shallowRan), fastWorker(queue, ran)]);
    let deepInWindow: number;
    let windowS: number;
    try {
      await until('the shallow queue drained', () => shallowRan.size >= shallowCount, 120_000, 5);
      deepInWindow = ran.size - ranBefore;
      windowS = (performance.now() - started) / 1000;
      await until('the deep queue drained', async () => (await queue.counts('pending', 'active')).pending === 0 && ran.size >= acked.size, 120_000, 20);
    } finally {
      await Promise.all(twins.map((w) => w.close()));
    }
    const deepRate = deepInWindow / windowS;
    const shallowRate = shallowCount / windowS;
    const figures = {
      overloadS: OVERLOAD_S,
      producedPerS: Math.round(producedRate),
      workedPerS: Math.round(slowRate),
      backlog,
      pendingAtStop: pending,
      redisGrowthBytes: memAfter - memBefore,
      bytesPerPendingJob: Math.round(bytesPerPending),
      nodeHeapGrowthBytes: process.memoryUsage().heapUsed - heapBefore,
      drainPerS: Math.round(deepRate),
      shallowPerS: Math.round(shallowRate),
      lost: [...acked].filter((id) => !ran.has(id)).length,
    };
    console.log(JSON.stringify(figures));
    expect(refused).toEqual([]);
    // The scenario's premise, both rates from the same window: the backlog grew.
    expect(producedRate).toBeGreaterThan(2 * slowRate);
    expect(figures.lost).toBe(0);
    // The job row (a small hash) plus its pending ZSET entry: a few hundred bytes each.
    expect(bytesPerPending).toBeGreaterThan(100);
    expect(bytesPerPending).toBeLessThan(1_500);
    // A deep queue does not slow the claim (a ZSET pop is O(log n)): over the window in which
    // the shallow twin ran dry, the deep one ran at least half as many.
    expect(deepInWindow).toBeGreaterThan(0.5 * shallowCount);
    expect(await queue.counts('pending', 'active')).toEqual({ pending: 0, active: 0 });
  }, 60_000 + OVERLOAD_S * 4_000);
});
