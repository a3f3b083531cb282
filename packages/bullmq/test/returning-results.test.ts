import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

async function doSomeAsyncProcessing(): Promise<{ total: number; label: string }> {
  await new Promise((resolve) => setTimeout(resolve, 5));
  return { total: 42, label: '42' };
}

describe('guide: returning job data', () => {
  it('the completed event of QueueEvents carries the returnvalue, decoded', async () => {
    const name = queueName('AsyncProc');
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const completed = nextEvent<[{ returnvalue: unknown }]>(queueEvents, 'completed');
    closing(new Worker(name, async () => {
      const result = await doSomeAsyncProcessing();
      return result;
    }, { connection }));
    await closing(new Queue(name, { connection })).add('proc', {});
    const [{ returnvalue }] = await completed;
    expect(returnvalue).toEqual({ total: 42, label: '42' });
  });

  it('job.waitUntilFinished(queueEvents) answers the return value, even when the job ran before the call', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    const worker = closing(new Worker(name, async (job: Job) => `hello ${(job.data as { who: string }).who}`, { connection }));
    const completed = nextEvent(worker, 'completed');
    const job = await queue.add('greet', { who: 'world' });
    await completed;
    expect(await job.waitUntilFinished(queueEvents)).toBe('hello world');
    const pending = await queue.add('greet', { who: 'again' });
    expect(await pending.waitUntilFinished(queueEvents, 10_000)).toBe('hello again');
  });

  it('waitUntilFinished rejects with the failure of a job that failed for good', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    closing(new Worker(name, async () => { throw new Error('no luck'); }, { connection }));
    const job = await queue.add('greet', {});
    await expect(job.waitUntilFinished(queueEvents, 10_000)).rejects.toThrow('no luck');
  });

  it('job.returnvalue reads back from getJob when completed jobs are kept', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection, defaultJobOptions: { removeOnComplete: 10 } }));
    const worker = closing(new Worker(name, async () => 7, { connection }));
    const completed = nextEvent(worker, 'completed');
    const job = await queue.add('n', {});
    await completed;
    expect((await queue.getJob(job.id))?.returnvalue).toBe(7);
  });
});
