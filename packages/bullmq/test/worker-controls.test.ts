/**
 * The worker's run-time controls as BullMQ has them: `concurrency` changed while it runs, the
 * `paused` / `resumed` events and the end of `run()` on a waiting pause, `maxStartedAttempts`, and
 * a processor-less worker for manual processing.
 */
import { describe, expect, it } from 'vitest';
import { DelayedError, Queue, WaitingError, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

/** A processor whose calls are held until released, counting how many run at once. */
function gated(): { processor: () => Promise<void>; running: () => number; peak: () => number; started: (n: number) => Promise<void>; releaseAll: () => void } {
  let running = 0;
  let peak = 0;
  let gates: (() => void)[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let startedCount = 0;
  return {
    processor: async () => {
      running++;
      startedCount++;
      peak = Math.max(peak, running);
      for (const w of waiters.filter((x) => x.n <= startedCount)) w.resolve();
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
    },
    running: () => running,
    peak: () => peak,
    started: (n) => (startedCount >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    releaseAll: () => {
      const open = gates;
      gates = [];
      for (const release of open) release();
    },
  };
}

describe('worker.concurrency', () => {
  it('raised while the worker runs, more jobs run at once straight away', async () => {
    const name = queueName('conc');
    const queue = closing(new Queue(name, { connection }));
    const gate = gated();
    const worker = closing(new Worker(name, gate.processor, { connection, concurrency: 1 }));
    await queue.addBulk(Array.from({ length: 4 }, (_, i) => ({ name: 'j', data: i })));
    await gate.started(1);
    expect(worker.concurrency).toBe(1);
    worker.concurrency = 3;
    expect(worker.concurrency).toBe(3);
    await gate.started(3);
    expect(gate.running()).toBe(3);
    gate.releaseAll();
  });

  it('lowered while the worker runs, running jobs finish and fewer are taken after', async () => {
    const name = queueName('conc');
    const queue = closing(new Queue(name, { connection }));
    const gate = gated();
    const worker = closing(new Worker(name, gate.processor, { connection, concurrency: 3 }));
    await queue.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'j', data: i })));
    await gate.started(3);
    worker.concurrency = 1;
    const done = new Promise<void>((resolve) => {
      let n = 0;
      worker.on('completed', () => {
        if (++n === 6) resolve();
      });
    });
    gate.releaseAll();
    // From here on one job at a time: release each as it starts.
    for (let started = 4; started <= 6; started++) {
      await gate.started(started);
      expect(gate.running()).toBe(1);
      gate.releaseAll();
    }
    await done;
  });

  it('refuses what BullMQ refuses, with its text, and keeps the value', async () => {
    const name = queueName('conc');
    const worker = closing(new Worker(name, async () => undefined, { connection, concurrency: 2, autorun: false }));
    expect(() => (worker.concurrency = 0)).toThrow('concurrency must be a finite number greater than 0');
    expect(() => (worker.concurrency = Number.NaN)).toThrow('concurrency must be a finite number greater than 0');
    expect(worker.concurrency).toBe(2);
  });
});

describe('worker.pause() and resume() events', () => {
  it('a waiting pause ends run() and emits paused; resume emits resumed and takes jobs again', async () => {
    const name = queueName('pause-ev');
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async (job: Job) => job.data, { connection, autorun: false }));
    await worker.waitUntilReady();
    const running = worker.run();
    expect(worker.isRunning()).toBe(true);
    const paused = nextEvent(worker, 'paused');
    await worker.pause();
    await paused;
    await running;
    expect(worker.isRunning()).toBe(false);
    await queue.add('after', 'x');
    const resumed = nextEvent(worker, 'resumed');
    const completed = nextEvent<[Job, unknown]>(worker, 'completed');
    await worker.resume();
    await resumed;
    expect(worker.isRunning()).toBe(true);
    const [, result] = await completed;
    expect(result).toBe('x');
  });

  it('close emits closing before closed', async () => {
    const name = queueName('pause-ev');
    const worker = new Worker(name, async () => undefined, { connection });
    await worker.waitUntilReady();
    const order: string[] = [];
    worker.on('closing', () => order.push('closing'));
    worker.on('closed', () => order.push('closed'));
    await worker.close();
    expect(order).toEqual(['closing', 'closed']);
  });
});

describe('maxStartedAttempts', () => {
  it('a job started more often than allowed fails without running its processor', async () => {
    const name = queueName('starts');
    const queue = closing(new Queue(name, { connection }));
    let runs = 0;
    const worker = closing(new Worker(name, async () => {
      runs++;
      throw new Error('again');
    }, { connection, maxStartedAttempts: 1 }));
    await queue.add('j', 1, { attempts: 3 });
    const [, first] = await nextEvent<[Job, Error]>(worker, 'failed');
    expect(first.message).toBe('again');
    const [job, second] = await nextEvent<[Job, Error]>(worker, 'failed');
    expect(second.message).toBe('job started more than allowable limit');
    expect(job.attemptsStarted).toBe(2);
    expect(runs).toBe(1);
    expect(await queue.getFailedCount()).toBe(1);
  });

  it('is refused below zero, with BullMQ\'s text', () => {
    expect(() => new Worker(queueName('starts'), async () => undefined, { connection, maxStartedAttempts: -1 })).toThrow('maxStartedAttempts must be greater or equal than 0');
  });
});

describe('a worker without a processor', () => {
  it('undefined, like null, is manual processing; run() refuses with BullMQ\'s text', async () => {
    const name = queueName('manual');
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, undefined, { connection, autorun: false }));
    await expect(worker.run()).rejects.toThrow('No process function is defined.');
    await queue.add('j', 1);
    const job = await worker.getNextJob('tok');
    expect(job?.data).toBe(1);
    await job?.moveToCompleted('ok', 'tok');
    expect(await job?.isCompleted()).toBe(true);
  });
});

describe('the job a worker runs', () => {
  it('names the worker in processedBy and, retried, shows the failure before and the backoff as its delay', async () => {
    const name = queueName('job-fields');
    const queue = closing(new Queue(name, { connection }));
    const seen: { processedBy: string | undefined; failedReason: string | null | undefined }[] = [];
    const worker = closing(new Worker(name, async (job: Job) => {
      seen.push({ processedBy: job.processedBy, failedReason: job.failedReason });
      if (job.attemptsStarted === 1) throw new Error('first try');
      return 'ok';
    }, { connection, name: 'painter' }));
    const failed = nextEvent<[Job, Error]>(worker, 'failed');
    const completed = nextEvent<[Job]>(worker, 'completed');
    await queue.add('j', 1, { attempts: 2, backoff: 50 });
    const [failedJob] = await failed;
    expect(failedJob.delay).toBe(50);
    const [done] = await completed;
    expect(done.delay).toBe(0);
    expect(seen).toEqual([
      { processedBy: 'painter', failedReason: undefined },
      { processedBy: 'painter', failedReason: 'first try' },
    ]);
  });

  it('keeps as many failures\' stack traces as stackTraceLimit says, none at 0, and refuses a bad limit', async () => {
    const name = queueName('stack-limit');
    const queue = closing(new Queue(name, { connection }));
    const failures: [Job, Error][] = [];
    const worker = closing(new Worker(name, async (job: Job) => {
      throw new Error(`try ${String(job.attemptsStarted)} of ${String(job.data)}`);
    }, { connection }));
    worker.on('failed', (job, error) => {
      if (job) failures.push([job, error]);
    });
    const one = await queue.add('one', 'one', { attempts: 2, backoff: 1, stackTraceLimit: 1 });
    const none = await queue.add('none', 'none', { attempts: 2, backoff: 1, stackTraceLimit: 0 });
    const all = await queue.add('all', 'all', { attempts: 2, backoff: 1 });
    while (failures.length < 6) await nextEvent(worker, 'failed');
    const last = (id: string | undefined): Job => failures.filter(([job]) => job.id === id).at(-1)?.[0] as Job;
    expect(last(one.id).stacktrace).toHaveLength(1);
    expect(last(one.id).stacktrace[0]).toContain('try 2 of one');
    expect(last(none.id).stacktrace).toEqual([]);
    expect(last(all.id).stacktrace).toHaveLength(2);
    // Read back from the server: the limit travels with the job.
    expect((await queue.getJob(one.id))?.stacktrace).toHaveLength(1);
    expect((await queue.getJob(none.id))?.stacktrace).toEqual([]);
    expect((await queue.getJob(one.id))?.opts.stackTraceLimit).toBe(1);
    await expect(queue.add('bad', 'bad', { stackTraceLimit: -1 })).rejects.toThrow(/stackTraceLimit/);
    expect(await queue.getJobCountByTypes('wait', 'delayed')).toBe(0);
  });

  it('waits out a delay a custom strategy answers as a promise', async () => {
    const name = queueName('job-fields');
    const queue = closing(new Queue(name, { connection }));
    let asked = 0;
    const worker = closing(new Worker(name, async (job: Job) => {
      if (job.attemptsStarted === 1) throw new Error('first try');
      return 'ok';
    }, {
      connection,
      settings: {
        backoffStrategy: async (attemptsMade, type) => {
          asked++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          return type === 'slow' ? 300 : 0;
        },
      },
    }));
    const failed = nextEvent<[Job]>(worker, 'failed');
    const completed = nextEvent<[Job]>(worker, 'completed');
    await queue.add('j', 1, { attempts: 2, backoff: { type: 'slow' } });
    const [failedJob] = await failed;
    const failedAt = Date.now();
    expect(failedJob.delay).toBe(300);
    await completed;
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(250);
    expect(asked).toBe(1);
  });
});

describe('job.retry', () => {
  it("runs a kept completed job again with retry('completed'); a job in another state is refused with BullMQ's text", async () => {
    const name = queueName('retry');
    const queue = closing(new Queue(name, { connection }));
    let runs = 0;
    const worker = closing(new Worker(name, async () => ++runs, { connection }));
    const first = nextEvent<[Job, unknown]>(worker, 'completed');
    const job = await queue.add('j', 1);
    await first;
    await expect(job.retry()).rejects.toThrow(`Job ${job.id} is not in the failed state. reprocessJob`);
    const again = nextEvent<[Job, unknown]>(worker, 'completed');
    await job.retry('completed');
    const [rerun, result] = await again;
    expect(result).toBe(2);
    expect(rerun.attemptsStarted).toBe(2);
    await queue.remove(job.id);
    await expect(job.retry('completed')).rejects.toThrow(`Missing key for job ${job.id}. reprocessJob`);
  });
});

describe('step jobs', () => {
  it('a start that ends in moveToWait or moveToDelayed is not counted in attemptsMade', async () => {
    const name = queueName('steps');
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async (job: Job, token?: string) => {
      const step = (job.data as { step: number }).step;
      if (step === 0) {
        await job.moveToWait(token);
        await job.updateData({ step: 1 });
        throw new WaitingError();
      }
      if (step === 1) {
        await job.moveToDelayed(Date.now() + 20, token);
        await job.updateData({ step: 2 });
        throw new DelayedError();
      }
      return 'done';
    }, { connection }));
    const completed = nextEvent<[Job, unknown]>(worker, 'completed');
    await queue.add('j', { step: 0 });
    const [job, result] = await completed;
    expect(result).toBe('done');
    expect(job.attemptsStarted).toBe(3);
    expect(job.attemptsMade).toBe(1);
  });
});
