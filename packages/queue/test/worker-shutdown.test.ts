/**
 * Closing a worker: a paused worker closes as promptly as a running one, and close() starts no
 * handler after it is called.
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

/** Generous for a loaded machine: a close that waits out its patience takes longer than this. */
const CLOSE_TIMEOUT_MS = 5000;
const quick = { maintenanceMs: 20, blockMs: 50, closeTimeoutMs: CLOSE_TIMEOUT_MS } as const;

const kinds = [
  { name: 'Worker', start: (queue: Queue<number>) => Worker.start(queue, () => undefined, { ...quick, concurrency: 3 }) },
  { name: 'BatchWorker', start: (queue: Queue<number>) => BatchWorker.start(queue, (): 'ok' => 'ok', { ...quick, size: 2, concurrency: 2 }) },
] as const;

describe.each(kinds)('$name: pause() then close()', ({ start }) => {
  it('closes within closeTimeoutMs on an empty queue, and the process goes on', async () => {
    const queue = await Queue.open<number>(uniqueName('shutdown'), { connection: conn });
    const worker = await start(queue);
    worker.pause();
    const began = performance.now();
    let closed = false;
    worker.on('closed', () => (closed = true));
    await worker.close();
    // Had the close spun, the event loop would never have reached this line (the heap runs out first).
    expect(closed).toBe(true);
    expect(performance.now() - began).toBeLessThan(CLOSE_TIMEOUT_MS);
    // Timers still run: the loop is not stuck in a chain of microtasks.
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('closes promptly when paused while jobs wait', async () => {
    const queue = await Queue.open<number>(uniqueName('shutdown'), { connection: conn });
    await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
    const worker = await start(queue);
    worker.pause();
    worker.pause();
    const began = performance.now();
    await worker.close();
    expect(performance.now() - began).toBeLessThan(CLOSE_TIMEOUT_MS);
  });
});

describe('close() starts nothing new while it waits for running handlers', () => {
  it('the pump stops at once: a job falling due during the close stays scheduled', async () => {
    const queue = await Queue.open<number>(uniqueName('shutdown'), { connection: conn });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const worker = await Worker.start(queue, async () => {
      started++;
      await held;
    }, { ...quick, concurrency: 1 });
    await queue.enqueue(1);
    await until(() => started === 1, 'the handler to start');
    const { id } = await queue.enqueue(2, { delayMs: 100 });
    const closed = worker.close();
    // Well past the due time, with the pump's period at 20 ms: had it ticked, the job would be pending.
    await sleep(600);
    expect(await queue.getState(id)).toBe('scheduled');
    release();
    await closed;
    expect(started).toBe(1);
  });
});
