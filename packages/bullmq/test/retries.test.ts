import { describe, expect, it } from 'vitest';
import type { Job} from '../src/index.js';
import { Queue, UnrecoverableError, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

/** Runs `processor` on one job added with `opts`; answers each attempt's start time, once the job failed for good. */
async function attemptTimes(opts: object, processor?: (job: Job) => Promise<unknown>, workerOpts: object = {}): Promise<number[]> {
  const name = queueName();
  const queue = closing(new Queue(name, { connection }));
  const times: number[] = [];
  const worker = closing(new Worker(name, async (job) => {
    times.push(Date.now());
    if (processor) return processor(job);
    throw new Error(`attempt ${String(job.attemptsMade + 1)}`);
  }, { connection, ...workerOpts }));
  let fails = 0;
  const dead = new Promise<void>((resolve) => worker.on('failed', (job) => {
    fails++;
    if (job !== undefined && fails === ((opts as { attempts?: number }).attempts ?? 1)) resolve();
  }));
  await queue.add('test-retry', { foo: 'bar' }, opts);
  await dead;
  return times;
}

describe('guide: retrying failing jobs', () => {
  it('attempts: 3 with a fixed backoff retries 1000 ms apart, then the job is failed', async () => {
    const times = await attemptTimes({ attempts: 3, backoff: { type: 'fixed', delay: 1000 } });
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(950);
  });

  it('exponential backoff waits delay · 2^(attempts − 1)', async () => {
    const times = await attemptTimes({ attempts: 3, backoff: { type: 'exponential', delay: 200 } });
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(190);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(390);
  });

  it('without backoff, a retry runs at once', async () => {
    const times = await attemptTimes({ attempts: 2 });
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeLessThan(900);
  });

  it('defaultJobOptions carry attempts and backoff to every add', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection, defaultJobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 10 } } }));
    const worker = closing(new Worker(name, async (job) => { if (job.attemptsMade < 2) throw new Error('not yet'); return job.attemptsMade; }, { connection }));
    const completed = nextEvent<[Job, unknown]>(worker, 'completed');
    await queue.add('test-retry', { foo: 'bar' });
    const [job, result] = await completed;
    expect(result).toBe(2);
    expect(job.attemptsMade).toBe(3);
  });

  it('a custom backoff strategy in the worker settings decides the delay', async () => {
    const seen: number[] = [];
    const times = await attemptTimes({ attempts: 3, backoff: { type: 'my-custom' } }, undefined, {
      settings: {
        backoffStrategy: (attemptsMade: number, type?: string) => {
          seen.push(attemptsMade);
          expect(type).toBe('my-custom');
          return attemptsMade * 100;
        },
      },
    });
    expect(seen).toEqual([1, 2]);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(190);
  });

  it('jitter takes up to its fraction off the delay', async () => {
    const times = await attemptTimes({ attempts: 2, backoff: { type: 'fixed', delay: 400, jitter: 0.5 } });
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(190);
  });

  it('UnrecoverableError fails the job at once, whatever attempts are left', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let runs = 0;
    const worker = closing(new Worker(name, async () => { runs++; throw new UnrecoverableError('no point'); }, { connection }));
    const failed = nextEvent<[Job]>(worker, 'failed');
    const job = await queue.add('test-retry', { foo: 'bar' }, { attempts: 5 });
    await failed;
    expect(runs).toBe(1);
    expect(await (await queue.getJob(job.id))?.getState()).toBe('failed');
  });

  it('job.retry() runs a failed job again', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let runs = 0;
    const worker = closing(new Worker(name, async () => { runs++; if (runs === 1) throw new Error('first'); return 'second'; }, { connection }));
    const failed = nextEvent(worker, 'failed');
    const job = await queue.add('test-retry', { foo: 'bar' });
    await failed;
    const completed = nextEvent<[Job, unknown]>(worker, 'completed');
    await (await queue.getJob(job.id))!.retry();
    expect((await completed)[1]).toBe('second');
  });
});
