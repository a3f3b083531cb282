/**
 * A worker's `drained` fires once per busy spell, when the worker has run out of work: nothing left
 * to claim and every job it took settled. A slot that finds the queue empty while another slot still
 * runs its job does not fire it.
 */
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
/** Several idle beats (blockMs 50), each an empty claim that must not fire `drained` again. */
const IDLE_BEATS_MS = 400;

type Start = (queue: Queue<number>, run: (n: number) => Promise<void>) => Promise<Worker<number> | BatchWorker<number>>;

const kinds: readonly { readonly name: string; readonly start: Start }[] = [
  { name: 'Worker', start: (queue, run) => Worker.start(queue, (job) => run(job.payload), { ...quick, concurrency: 2 }) },
  {
    name: 'BatchWorker',
    start: (queue, run) =>
      BatchWorker.start(queue, async (jobs): Promise<'ok'> => {
        await Promise.all(jobs.map((j) => run(j.payload)));
        return 'ok';
      }, { ...quick, size: 1, concurrency: 2 }),
  },
];

describe.each(kinds)('$name: drained', ({ start }) => {
  it('fires once, after both jobs completed, not while they run (chatty events on)', async () => {
    const queue = await Queue.open<number>(uniqueName('drained'), { connection: conn });
    await queue.setEvents({ chatty: true });
    let releaseFirst: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    const started: number[] = [];
    const worker = await start(queue, async (n) => {
      started.push(n);
      // The first job outlasts the second: its slot is still busy when the other finds nothing.
      if (n === 1) await first;
    });
    const completedAtDrained: number[] = [];
    let completed = 0;
    worker.on('completed', () => completed++);
    worker.on('drained', () => completedAtDrained.push(completed));
    // Job 2 comes once job 1 runs, so the other slot takes it (a batch slot would carry it ahead).
    await queue.enqueue(1);
    await until(() => started.length === 1, 'job 1 to start');
    await queue.enqueue(2);
    await until(() => completed === 1 && started.length === 2, 'job 2 to complete while job 1 runs');
    await sleep(IDLE_BEATS_MS);
    expect(completedAtDrained).toEqual([]);
    releaseFirst();
    await until(() => completedAtDrained.length === 1, 'drained');
    await sleep(IDLE_BEATS_MS);
    expect(completedAtDrained).toEqual([2]);
    // A new spell of work fires it once more.
    await queue.enqueue(3);
    await until(() => completedAtDrained.length === 2, 'drained again');
    expect(completedAtDrained).toEqual([2, 3]);
    await worker.close();
  });

  it('two jobs enqueued together: drained comes after both completed', async () => {
    const queue = await Queue.open<number>(uniqueName('drained'), { connection: conn });
    await queue.setEvents({ chatty: true });
    const worker = await start(queue, () => sleep(100));
    const completedAtDrained: number[] = [];
    let completed = 0;
    worker.on('completed', () => completed++);
    worker.on('drained', () => completedAtDrained.push(completed));
    await queue.enqueueMany([1, 2].map((payload) => ({ payload })));
    await until(() => completedAtDrained.length === 1, 'drained');
    await sleep(IDLE_BEATS_MS);
    expect(completedAtDrained).toEqual([2]);
    await worker.close();
  });
});
