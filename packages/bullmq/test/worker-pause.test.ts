/** `worker.pause()` resolves when the jobs running at the time have ended, as BullMQ's does. */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

/** A processor held until `release()`, and a promise of its start. */
function held(): { processor: () => Promise<string>; started: Promise<void>; release: () => void } {
  let release = (): void => undefined;
  let started = (): void => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const start = new Promise<void>((resolve) => (started = resolve));
  return { processor: async () => { started(); await gate; return 'done'; }, started: start, release };
}

describe('worker.pause()', () => {
  it('resolves only once the running job has completed; nothing more is taken', async () => {
    const name = queueName('pause');
    const queue = closing(new Queue(name, { connection }));
    const job = held();
    const worker = closing(new Worker(name, job.processor, { connection }));
    await queue.add('one', 1);
    await job.started;
    let paused = false;
    const pausing = worker.pause().then(() => (paused = true));
    // A round trip to Redis: the pause had time to resolve if it did not wait.
    expect(await queue.getJobCounts('active')).toEqual({ active: 1 });
    expect(paused).toBe(false);
    job.release();
    await pausing;
    expect(await queue.getJobCounts('active', 'completed')).toEqual({ active: 0, completed: 1 });
    expect(worker.isPaused()).toBe(true);
    await queue.add('two', 2);
    expect(await queue.getJobCounts('active', 'waiting')).toEqual({ active: 0, waiting: 1 });
  });

  it('pause(true) does not wait for the running job', async () => {
    const name = queueName('pause');
    const queue = closing(new Queue(name, { connection }));
    const job = held();
    const worker = closing(new Worker(name, job.processor, { connection }));
    await queue.add('one', 1);
    await job.started;
    await worker.pause(true);
    expect(await queue.getJobCounts('active')).toEqual({ active: 1 });
    const completed = nextEvent(worker, 'completed');
    job.release();
    await completed;
  });
});
