/** `close(true)` (and `close()` after `pause()`) ends a paused worker promptly. */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('closing a paused worker', () => {
  it.each([true, false])('close(%s) after pause() resolves, with closed emitted', async (force) => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = new Worker(name, async () => 'ok', { connection });
    const completed = nextEvent(worker, 'completed');
    await queue.add('one', { n: 1 });
    await completed;
    await worker.pause();
    let closed = false;
    worker.on('closed', () => (closed = true));
    await worker.close(force);
    expect(closed).toBe(true);
    // The event loop still turns: timers run after the close.
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
