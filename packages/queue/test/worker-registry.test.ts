import { hostname } from 'node:os';
import { Connection, execute, mintId, transitions } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

let url: string;
let conn: Connection;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await Connection.connect({ url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

describe('queue.getWorkers() [TS]', () => {
  it('lists a Worker and a BatchWorker from the moment start() resolves, with what they run', async () => {
    const queue = await Queue.open(uniqueName('reg'), { connection: conn });
    const before = Date.now();
    const worker = await Worker.start(queue, () => undefined, { name: 'billing-1', concurrency: 7, maintenanceMs: 0 });
    const batch = await BatchWorker.start(queue, () => 'ok', { concurrency: 3, maintenanceMs: 0, autorun: false });
    const listed = await queue.getWorkers();
    expect(listed).toHaveLength(2);
    const w = listed.find((x) => x.kind === 'worker');
    expect(w).toMatchObject({ name: 'billing-1', host: hostname(), pid: process.pid, concurrency: 7, active: 0 });
    expect(w?.startedAt).toBeGreaterThanOrEqual(before);
    // The default lease beat is 15 s, so an entry stands three beats: 45 s after the last one.
    expect((w?.lapsesAt ?? 0) - (w?.lastBeatAt ?? 0)).toBe(45_000);
    expect(listed.find((x) => x.kind === 'batch')).toMatchObject({ name: `${hostname()}:${process.pid}`, concurrency: 3 });
    expect(new Set(listed.map((x) => x.id)).size).toBe(2);
    await worker.close();
    expect((await queue.getWorkers()).map((x) => x.kind)).toEqual(['batch']);
    await batch.close();
    expect(await queue.getWorkers()).toEqual([]);
    expect(await conn.command('EXISTS', queue.keys.workers, queue.keys.workersInfo)).toBe(0);
  });

  it('each lease beat refreshes the entry with the jobs held', async () => {
    const queue = await Queue.open<number>(uniqueName('reg'), { connection: conn });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = await Worker.start(queue, () => gate, { concurrency: 4, leaseMs: 400, maintenanceMs: 0, blockMs: 50 });
    const first = (await queue.getWorkers())[0];
    expect(first?.active).toBe(0);
    await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
    await until(async () => (await queue.getWorkers())[0]?.active === 3, 'a beat reporting 3 held jobs');
    const busy = (await queue.getWorkers())[0];
    expect(busy?.lastBeatAt).toBeGreaterThan(first?.lastBeatAt ?? Infinity);
    release();
    await until(async () => (await queue.getWorkers())[0]?.active === 0, 'a beat reporting 0 held jobs');
    await worker.close();
  });

  it('a worker that stops beating without a word drops out once its entry lapses', async () => {
    const own = await Connection.connect({ url });
    const queue = await Queue.open(uniqueName('reg'), { connection: own });
    const observer = await Queue.open(queue.name, { connection: conn });
    // Beat every 100 ms: the entry lapses 1 s (the floor) after the last beat.
    const worker = await Worker.start(queue, () => undefined, { leaseMs: 200, maintenanceMs: 0, blockMs: 50, onError: () => undefined });
    expect(await observer.getWorkers()).toHaveLength(1);
    // The worker's connection goes away: it stops itself and cannot say goodbye.
    await own.close();
    await until(() => worker.fatalError !== undefined, 'the worker to stop itself');
    expect(await observer.getWorkers()).toHaveLength(1);
    await until(async () => (await observer.getWorkers()).length === 0, 'the entry to lapse', 4000);
  });

  it('obliterate deletes the registry and the lanes` rate limits with the rest of the queue', async () => {
    const queue = await Queue.open(uniqueName('reg'), { connection: conn });
    // An entry left by a worker that died without a word, and a lane limit.
    await execute(conn, transitions.workerBeat({ queue: queue.name, id: 'gone', ttlMs: 60_000, info: '{}' }));
    await queue.laneRateLimit(mintId('TEN'), { max: 1, durationMs: 1000 });
    expect(await conn.command('EXISTS', queue.keys.workers, queue.keys.workersInfo, queue.keys.grate)).toBe(3);
    await queue.pause();
    await queue.obliterate();
    expect(await conn.command('EXISTS', queue.keys.workers, queue.keys.workersInfo, queue.keys.grate)).toBe(0);
  });

  it('refuses a bad name before anything starts', async () => {
    const queue = await Queue.open(uniqueName('reg'), { connection: conn });
    await expect(Worker.start(queue, () => undefined, { name: '' })).rejects.toThrow(/name/);
    expect(await queue.getWorkers()).toEqual([]);
  });
});
