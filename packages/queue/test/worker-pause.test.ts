import { Connection } from '@echo/protocol/queue';
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

const quick = { maintenanceMs: 20, blockMs: 50 } as const;
/** Long enough for a slot's first claim to land on a loaded machine, had it been sent. */
const SETTLE_MS = 300;

type Start = (queue: Queue<number>, seen: number[], options: { autorun?: boolean }) => Promise<Worker<number> | BatchWorker<number>>;

const kinds: readonly { readonly name: string; readonly start: Start }[] = [
  {
    name: 'Worker',
    start: (queue, seen, options) =>
      Worker.start(queue, (job) => void seen.push(job.payload), { ...quick, concurrency: 3, ...options }),
  },
  {
    name: 'BatchWorker',
    start: (queue, seen, options) =>
      BatchWorker.start(queue, (jobs): 'ok' => {
        seen.push(...jobs.map((j) => j.payload));
        return 'ok';
      }, { ...quick, size: 2, concurrency: 2, ...options }),
  },
];

describe.each(kinds)('$name: a paused worker claims nothing, from its first claim on', ({ start }) => {
  it('autorun: false, pause(), run(): no job runs until resume()', async () => {
    const queue = await Queue.open<number>(uniqueName('pause'), { connection: conn });
    await queue.enqueueMany([1, 2, 3, 4].map((payload) => ({ payload })));
    const seen: number[] = [];
    const worker = await start(queue, seen, { autorun: false });
    worker.pause();
    worker.run();
    await sleep(SETTLE_MS);
    expect(worker.isPaused).toBe(true);
    expect(seen).toEqual([]);
    expect(await queue.counts('pending', 'active')).toEqual({ pending: 4, active: 0 });
    worker.resume();
    await until(() => seen.length === 4, 'every job to run after resume()');
    await worker.close();
  });

  it('pause() right after start: no job runs until resume()', async () => {
    const queue = await Queue.open<number>(uniqueName('pause'), { connection: conn });
    await queue.enqueueMany([1, 2, 3, 4].map((payload) => ({ payload })));
    const seen: number[] = [];
    const worker = await start(queue, seen, {});
    worker.pause();
    await sleep(SETTLE_MS);
    expect(seen).toEqual([]);
    expect(await queue.counts('pending', 'active')).toEqual({ pending: 4, active: 0 });
    worker.resume();
    await until(() => seen.length === 4, 'every job to run after resume()');
    await worker.close();
  });
});
