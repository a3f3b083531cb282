import { InvalidArgumentError } from '@echo/protocol/queue';
import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

/** A latch the test opens: the first job's handler waits on it, so the job stays active until then. */
function latch(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Resolves once `worker` has emitted `event` `count` times. */
function times(worker: Worker, event: 'completed' | 'failed', count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    worker.on(event, () => {
      seen += 1;
      if (seen === count) resolve();
    });
  });
}

const dedup = (id: string): { deduplication: { id: string; keepLastIfActive: true } } => ({ deduplication: { id, keepLastIfActive: true } });

describe('deduplication.keepLastIfActive', () => {
  it('keeps the newest add made while the job is active and runs it after, never beside it', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const started = latch();
    const release = latch();
    const seen: unknown[] = [];
    let running = 0;
    let most = 0;
    const worker = closing(
      new Worker(
        name,
        async (job: Job) => {
          running += 1;
          most = Math.max(most, running);
          if (seen.length === 0) {
            started.open();
            await release.wait;
          }
          seen.push(job.data);
          running -= 1;
        },
        { connection, concurrency: 5 },
      ),
    );
    const both = times(worker, 'completed', 2);
    const first = await queue.add('sync', { seq: 1 }, dedup('account-7'));
    await started.wait;
    const second = await queue.add('sync', { seq: 2 }, dedup('account-7'));
    const third = await queue.add('sync', { seq: 3 }, dedup('account-7'));
    // Both adds answer the active job, as a deduplicated add does.
    expect([second.id, third.id]).toEqual([first.id, first.id]);
    expect(await queue.getWaitingCount()).toBe(0);
    release.open();
    await both;
    expect(seen).toEqual([{ seq: 1 }, { seq: 3 }]);
    expect(most).toBe(1);
  });

  it('is plain deduplication while the job still waits', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const events = closing(new QueueEvents(name, { connection }));
    await events.waitUntilReady();
    const deduplicated = nextEvent<[{ jobId: string }]>(events, 'deduplicated');
    const first = await queue.add('sync', { seq: 1 }, dedup('account-8'));
    const second = await queue.add('sync', { seq: 2 }, dedup('account-8'));
    expect(second.id).toBe(first.id);
    expect((await deduplicated)[0].jobId).toBe(first.id);
    const seen: unknown[] = [];
    const worker = closing(new Worker(name, async (job: Job) => { seen.push(job.data); }, { connection }));
    await nextEvent(worker, 'completed');
    expect(seen).toEqual([{ seq: 1 }]);
    expect(await queue.getJobCounts('wait', 'delayed', 'active')).toEqual({ wait: 0, delayed: 0, active: 0 });
  });

  it('admits the kept add only once the active job has failed for good', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const started = latch();
    const release = latch();
    let attempts = 0;
    const seen: unknown[] = [];
    const worker = closing(
      new Worker(
        name,
        async (job: Job) => {
          if ((job.data as { seq: number }).seq === 1) {
            attempts += 1;
            if (attempts === 1) {
              started.open();
              await release.wait;
            }
            throw new Error('upstream down');
          }
          seen.push(job.data);
        },
        { connection },
      ),
    );
    const done = nextEvent(worker, 'completed');
    await queue.add('sync', { seq: 1 }, { ...dedup('account-9'), attempts: 3, backoff: { type: 'fixed', delay: 20 } });
    await started.wait;
    await queue.add('sync', { seq: 2 }, dedup('account-9'));
    release.open();
    await done;
    expect(attempts).toBe(3);
    expect(seen).toEqual([{ seq: 2 }]);
  });

  it('admits a kept add with its own delay after the active job ends', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const started = latch();
    const release = latch();
    const seen: unknown[] = [];
    const worker = closing(
      new Worker(
        name,
        async (job: Job) => {
          if (seen.length === 0) {
            started.open();
            await release.wait;
          }
          seen.push(job.data);
        },
        { connection },
      ),
    );
    const firstDone = nextEvent(worker, 'completed');
    await queue.add('sync', { seq: 1 }, dedup('account-10'));
    await started.wait;
    await queue.add('sync', { seq: 2 }, { ...dedup('account-10'), delay: 300 });
    const secondDone = times(worker, 'completed', 2);
    release.open();
    await firstDone;
    expect(await queue.getDelayedCount()).toBe(1);
    await secondDone;
    expect(seen).toEqual([{ seq: 1 }, { seq: 2 }]);
  });

  it('refuses a keepLastIfActive that is not a boolean', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const options = { deduplication: { id: 'a', keepLastIfActive: 'yes' } } as unknown as Parameters<Queue['add']>[2];
    await expect(queue.add('sync', {}, options)).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
