import { Connection, mintId } from '@echo/protocol/queue';
import { startCluster, uniqueName, type RedisCluster } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker } from '../src/index.js';
import { sleep, until } from './worker-harness.js';

let cluster: RedisCluster;
let conn: Connection;

beforeAll(async () => {
  cluster = await startCluster({ masters: 3 });
  conn = await Connection.connect({ cluster: cluster.seeds, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
  await cluster.stop();
});

const quick = { maintenanceMs: 50, blockMs: 50 } as const;

describe('worker registry and lane limits on a 3-master cluster [TS]', () => {
  it('lists and forgets workers of queues on different nodes', async () => {
    const queues = await Promise.all(Array.from({ length: 3 }, () => Queue.open(uniqueName('creg'), { connection: conn })));
    const workers = await Promise.all(queues.map((q, i): Promise<{ close(): Promise<void> }> => (i === 0 ? BatchWorker.start(q, () => 'ok', quick) : Worker.start(q, () => undefined, { ...quick, concurrency: i + 1 }))));
    for (const [i, q] of queues.entries()) {
      const listed = await q.getWorkers();
      expect(listed).toHaveLength(1);
      expect(listed[0]?.kind).toBe(i === 0 ? 'batch' : 'worker');
    }
    await Promise.all(workers.map((w) => w.close()));
    for (const q of queues) expect(await q.getWorkers()).toEqual([]);
  });

  it('two workers on two connections share a lane`s rate limit; weighted batches follow the weights', async () => {
    const other = await Connection.connect({ cluster: cluster.seeds });
    const name = uniqueName('clrate');
    const queue = await Queue.open<string>(name, { connection: conn });
    const [limited, free] = [mintId('TEN'), mintId('TEN')];
    await queue.laneRateLimit(limited, { max: 4, durationMs: 60_000 });
    for (let i = 0; i < 12; i++) await queue.enqueueInLane(limited, limited);
    for (let i = 0; i < 6; i++) await queue.enqueueInLane(free, free);
    const served: string[] = [];
    const handler = (job: { payload: string }): void => void served.push(job.payload);
    const a = await Worker.start(queue, handler, { ...quick, source: 'lanes', concurrency: 2 });
    const b = await Worker.start(await Queue.open<string>(name, { connection: other }), handler, { ...quick, source: 'lanes', concurrency: 2 });
    await until(() => served.length === 10, 'the free lane and one window of the limited lane');
    await sleep(300);
    expect(served.filter((g) => g === limited)).toHaveLength(4);
    expect(await queue.laneDepths([limited])).toEqual([8]);
    await Promise.all([a.close(), b.close()]);
    await other.close();

    const weighted = await Queue.open<string>(uniqueName('clw'), { connection: conn });
    const [heavy, light] = [mintId('TEN'), mintId('TEN')];
    await weighted.laneWeight(heavy, 3);
    for (let i = 0; i < 60; i++) await Promise.all([weighted.enqueueInLane(heavy, heavy), weighted.enqueueInLane(light, light)]);
    const batches: string[][] = [];
    const bw = await BatchWorker.start(weighted, (jobs) => {
      batches.push(jobs.map((j) => j.payload));
      return 'ok';
    }, { ...quick, source: 'lanes', size: 9 });
    await until(() => batches.flat().length >= 48, 'a window of 48 jobs');
    await bw.close();
    const window = batches.flat().slice(0, 48);
    expect(window.filter((g) => g === heavy).length / window.filter((g) => g === light).length).toBeGreaterThan(2);
  });
});
