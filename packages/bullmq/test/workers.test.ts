import { describe, expect, it } from 'vitest';
import type { Job} from '../src/index.js';
import { Queue, QueueEvents, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: workers', () => {
  it('a processor reports progress (a number, an object) and returns a value; the worker emits active, progress, completed', async () => {
    const queueName_ = queueName();
    const queue = closing(new Queue(queueName_, { connection }));
    const seen: unknown[] = [];
    const worker = closing(
      new Worker(
        queueName_,
        async (job: Job) => {
          // Optionally report some progress
          await job.updateProgress(42);
          // Optionally sending an object as progress
          await job.updateProgress({ foo: 'bar' });
          // Do something with job
          return 'some value';
        },
        { connection },
      ),
    );
    worker.on('active', (job) => seen.push(['active', job.name]));
    worker.on('progress', (_job: Job, progress: number | object) => seen.push(['progress', progress]));
    const completed = nextEvent<[Job, unknown]>(worker, 'completed');
    const added = await queue.add('paint', { color: 'red' }, { removeOnComplete: false });
    const [job, returnvalue] = await completed;
    expect(returnvalue).toBe('some value');
    expect(job.id).toBe(added.id);
    expect(job.returnvalue).toBe('some value');
    expect(job.finishedOn).toBeTypeOf('number');
    expect(seen).toEqual([['active', 'paint'], ['progress', 42], ['progress', { foo: 'bar' }]]);
    const stored = await queue.getJob(added.id);
    expect(stored?.progress).toEqual({ foo: 'bar' });
  });

  it('autorun: false waits for run()', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.add('paint', { color: 'red' });
    const worker = closing(new Worker(name, async () => 'some value', { autorun: false, connection }));
    await worker.waitUntilReady();
    expect(worker.isRunning()).toBe(false);
    expect(await queue.getWaitingCount()).toBe(1);
    const completed = nextEvent(worker, 'completed');
    void worker.run();
    await completed;
    expect(worker.isRunning()).toBe(true);
  });

  it('a processor that throws fails the job: failed(job, error, prev), failedReason and stacktrace kept', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => { throw new Error('out of paint'); }, { connection }));
    const failed = nextEvent<[Job | undefined, Error, string]>(worker, 'failed');
    const job = await queue.add('paint', { color: 'red' });
    const [failedJob, error, prev] = await failed;
    expect(failedJob?.id).toBe(job.id);
    expect(error.message).toBe('out of paint');
    expect(prev).toBe('active');
    expect(failedJob?.failedReason).toBe('out of paint');
    expect(failedJob?.attemptsMade).toBe(1);
    const stored = await queue.getJob(job.id);
    expect(await stored?.getState()).toBe('failed');
    expect(stored?.failedReason).toBe('out of paint');
    expect(await queue.getFailedCount()).toBe(1);
    expect((await queue.getFailed()).map((j) => j.id)).toEqual([job.id]);
  });

  it('QueueEvents hears completed, failed and progress from every worker', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    const heard: unknown[] = [];
    queueEvents.on('progress', ({ jobId, data }) => heard.push(['progress', jobId, data]));
    queueEvents.on('failed', ({ jobId, failedReason }) => heard.push(['failed', jobId, failedReason]));
    const completed = nextEvent<[{ jobId: string; returnvalue: unknown }]>(queueEvents, 'completed');
    await queueEvents.waitUntilReady();
    closing(new Worker(name, async (job: Job) => {
      await job.updateProgress(50);
      if ((job.data as { fail: boolean }).fail) throw new Error('bad brush');
      return { painted: true };
    }, { connection }));
    const bad = await queue.add('paint', { fail: true }, { jobId: 'bad-1' });
    const good = await queue.add('paint', { fail: false }, { jobId: 'good-1' });
    const [{ jobId, returnvalue }] = await completed;
    expect(jobId).toBe(good.id);
    expect(returnvalue).toEqual({ painted: true });
    expect(heard).toContainEqual(['failed', bad.id, 'bad brush']);
    expect(heard).toContainEqual(['progress', good.id, 50]);
  });

  it('concurrency runs that many jobs at once', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let running = 0;
    let peak = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = closing(new Worker(name, async () => {
      running++;
      peak = Math.max(peak, running);
      if (running === 3) release();
      await gate;
      running--;
    }, { connection, concurrency: 3 }));
    await queue.addBulk([1, 2, 3, 4].map((n) => ({ name: 'paint', data: { n } })));
    await gate;
    expect(peak).toBe(3);
    await nextEvent(worker, 'drained');
  });
});
