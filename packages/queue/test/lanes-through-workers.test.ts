import { Connection, mintId } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker } from '../src/index.js';
import { sleep, until } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const quick = { maintenanceMs: 50, blockMs: 50 } as const;

/** Admits `count` jobs into each lane, all before any worker starts, so the order is the rotation's. */
async function fill(queue: Queue<string>, lanes: Readonly<Record<string, number>>): Promise<void> {
  for (const [group, count] of Object.entries(lanes)) {
    for (let i = 0; i < count; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => queue.enqueueInLane(group, group)));
    }
  }
}

/** Where in the run each lane's last job was served (0-based position in `served`). */
function lastServed(served: readonly string[], group: string): number {
  return served.lastIndexOf(group);
}

describe('fair lanes through workers, under load', () => {
  it('Worker, source lanes: with 1,000 / 100 / 10 jobs the small lanes finish long before the big one', async () => {
    const queue = await Queue.open<string>(uniqueName('fair'), { connection: conn });
    const [big, mid, small] = [mintId('TEN'), mintId('TEN'), mintId('TEN')];
    await fill(queue, { [big]: 1000, [mid]: 100, [small]: 10 });
    const served: string[] = [];
    const worker = await Worker.start(queue, (job) => void served.push(job.payload), { ...quick, source: 'lanes', concurrency: 8 });
    await until(() => served.length === 1110, 'every job', 20_000);
    await worker.close();
    // A pure rotation serves the small lane's 10 within the first ~30 jobs and the middle one's 100
    // within ~210; the bounds leave room for slots finishing out of order.
    expect(lastServed(served, small)).toBeLessThan(100);
    expect(lastServed(served, mid)).toBeLessThan(400);
    expect(lastServed(served, big)).toBeGreaterThan(1000);
  });

  it('BatchWorker, source lanes: batches of `size` from one lane each, the small lanes done first', async () => {
    const queue = await Queue.open<string>(uniqueName('fair'), { connection: conn });
    const [big, mid, small] = [mintId('TEN'), mintId('TEN'), mintId('TEN')];
    await fill(queue, { [big]: 1000, [mid]: 100, [small]: 10 });
    const batches: string[][] = [];
    const worker = await BatchWorker.start(queue, (jobs) => {
      batches.push(jobs.map((j) => j.payload));
      return 'ok';
    }, { ...quick, source: 'lanes', size: 10 });
    await until(() => batches.flat().length === 1110, 'every job', 20_000);
    await worker.close();
    expect(Math.max(...batches.map((b) => b.length))).toBe(10);
    expect(batches.every((b) => new Set(b).size === 1)).toBe(true);
    const lastBatch = (g: string): number => batches.map((b) => b[0]).lastIndexOf(g);
    expect(lastBatch(small)).toBeLessThan(10);
    expect(lastBatch(mid)).toBeLessThan(40);
    expect(lastBatch(big)).toBeGreaterThan(100);
  });

  it('Worker: weights 3:1 give about 3:1 shares while both lanes have work', async () => {
    const queue = await Queue.open<string>(uniqueName('weights'), { connection: conn });
    const [heavy, light] = [mintId('TEN'), mintId('TEN')];
    await queue.laneWeight(heavy, 3);
    await fill(queue, { [heavy]: 600, [light]: 600 });
    const served: string[] = [];
    const worker = await Worker.start(queue, (job) => void served.push(job.payload), { ...quick, source: 'lanes', concurrency: 4 });
    await until(() => served.length >= 400, 'a window of 400 jobs', 20_000);
    await worker.close();
    const window = served.slice(0, 400);
    const ratio = window.filter((g) => g === heavy).length / window.filter((g) => g === light).length;
    expect(ratio).toBeGreaterThan(2.2);
    expect(ratio).toBeLessThan(4);
  });

  it('BatchWorker: weights 3:1 give about 3:1 shares, each batch still one lane`s', async () => {
    const queue = await Queue.open<string>(uniqueName('weights'), { connection: conn });
    const [heavy, light] = [mintId('TEN'), mintId('TEN')];
    await queue.laneWeight(heavy, 3);
    await fill(queue, { [heavy]: 600, [light]: 600 });
    const batches: string[][] = [];
    const worker = await BatchWorker.start(queue, (jobs) => {
      batches.push(jobs.map((j) => j.payload));
      return 'ok';
    }, { ...quick, source: 'lanes', size: 12 });
    await until(() => batches.flat().length >= 400, 'a window of 400 jobs', 20_000);
    await worker.close();
    expect(batches.every((b) => new Set(b).size === 1)).toBe(true);
    const window = batches.flat().slice(0, 400);
    const ratio = window.filter((g) => g === heavy).length / window.filter((g) => g === light).length;
    expect(ratio).toBeGreaterThan(2.2);
    expect(ratio).toBeLessThan(4);
  });
});

describe('per-lane rate limits through workers [TS]', () => {
  it('two workers share a lane`s limit; the other lanes run on; lifting it lets the rest through', async () => {
    const queue = await Queue.open<string>(uniqueName('lrate'), { connection: conn });
    const [limited, free] = [mintId('TEN'), mintId('TEN')];
    await queue.laneRateLimit(limited, { max: 5, durationMs: 60_000 });
    await fill(queue, { [limited]: 20, [free]: 10 });
    const served: string[] = [];
    const options = { ...quick, source: 'lanes', concurrency: 3 } as const;
    const workers = await Promise.all([1, 2].map(() => Worker.start(queue, (job) => void served.push(job.payload), options)));
    await until(() => served.length === 15, 'the free lane and the limited lane`s window');
    await sleep(300);
    expect(served.filter((g) => g === limited)).toHaveLength(5);
    expect(served.filter((g) => g === free)).toHaveLength(10);
    expect(await queue.laneDepths([limited])).toEqual([15]);
    await queue.laneRateLimit(limited, null);
    await until(() => served.length === 30, 'the rest once lifted');
    await Promise.all(workers.map((w) => w.close()));
  });

  it('a BatchWorker honours it too, window after window', async () => {
    const queue = await Queue.open<string>(uniqueName('lrate'), { connection: conn });
    const lane = mintId('TEN');
    await queue.laneRateLimit(lane, { max: 3, durationMs: 300 });
    await fill(queue, { [lane]: 9 });
    const sizes: number[] = [];
    const started = Date.now();
    const worker = await BatchWorker.start(queue, (jobs) => {
      sizes.push(jobs.length);
      return 'ok';
    }, { ...quick, source: 'lanes', size: 10 });
    await until(() => sizes.reduce((a, b) => a + b, 0) === 9, 'all nine jobs');
    const elapsed = Date.now() - started;
    await worker.close();
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    // Three windows of three: the last cannot open before two windows have passed.
    expect(elapsed).toBeGreaterThanOrEqual(550);
  });

  it('composes with the queue`s own limit: the tighter one holds', async () => {
    const queue = await Queue.open<string>(uniqueName('lrate'), { connection: conn });
    const lane = mintId('TEN');
    await queue.setRateLimit({ max: 4, durationMs: 60_000 });
    await queue.laneRateLimit(lane, { max: 10, durationMs: 60_000 });
    await fill(queue, { [lane]: 12 });
    const served: string[] = [];
    const worker = await Worker.start(queue, (job) => void served.push(job.payload), { ...quick, source: 'lanes', concurrency: 4 });
    await until(() => served.length === 4, 'the queue`s window');
    await sleep(300);
    expect(served).toHaveLength(4);
    await worker.close();
  });
});
