import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: graceful shutdown', () => {
  it('close() waits for the running job to finish and takes no new one', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const finished: number[] = [];
    const worker = new Worker(name, async (job) => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 200));
      finished.push((job.data as { n: number }).n);
      return 'ok';
    }, { connection });
    await queue.add('slow', { n: 1 });
    await running;
    await queue.add('slow', { n: 2 });
    await worker.close();
    expect(finished).toEqual([1]);
    expect(await queue.getWaitingCount()).toBe(1);
    expect(await queue.getActiveCount()).toBe(0);
  });

  it('close() emits closed, and run() resolves', async () => {
    const name = queueName();
    const worker = new Worker(name, async () => 'ok', { connection, autorun: false });
    let closedEvent = false;
    worker.on('closed', () => (closedEvent = true));
    const run = worker.run();
    await worker.waitUntilReady();
    await worker.close();
    await run;
    expect(closedEvent).toBe(true);
  });
});
