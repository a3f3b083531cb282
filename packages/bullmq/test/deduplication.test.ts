import { describe, expect, it } from 'vitest';
import { NotSupportedError, Queue, QueueEvents, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: deduplication', () => {
  it('simple mode: a second add with the same id is ignored while the job lives, and reported as deduplicated', async () => {
    const name = queueName();
    const myQueue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const deduplicated = nextEvent<[{ jobId: string; deduplicationId: string; deduplicatedJobId: string }]>(queueEvents, 'deduplicated');
    const first = await myQueue.add('house', { color: 'white' }, { deduplication: { id: 'customValue' } });
    const second = await myQueue.add('house', { color: 'black' }, { deduplication: { id: 'customValue' } });
    expect(second.id).toBe(first.id);
    expect(second.data).toEqual({ color: 'white' });
    expect(await myQueue.getWaitingCount()).toBe(1);
    const [{ jobId, deduplicationId }] = await deduplicated;
    expect(jobId).toBe(first.id);
    expect(deduplicationId).toBe('customValue');
    expect(await myQueue.getDeduplicationJobId('customValue')).toBe(first.id);
    // Once the job is done, the id is free again.
    const worker = closing(new Worker(name, async () => 'done', { connection }));
    await nextEvent(worker, 'completed');
    const third = await myQueue.add('house', { color: 'grey' }, { deduplication: { id: 'customValue' } });
    expect(third.id).not.toBe(first.id);
  });

  it('throttle mode: with a ttl the id holds for ttl ms', async () => {
    const myQueue = closing(new Queue(queueName(), { connection }));
    const a = await myQueue.add('house', { color: 'white' }, { deduplication: { id: 'customValue', ttl: 5000 } });
    const b = await myQueue.add('house', { color: 'white' }, { deduplication: { id: 'customValue', ttl: 5000 } });
    expect(b.id).toBe(a.id);
  });

  it('debounce mode (extend + replace): each add keeps the one delayed job, with the latest data, and restarts its wait', async () => {
    const name = queueName();
    const myQueue = closing(new Queue(name, { connection }));
    const first = await myQueue.add('house1', { color: 'white 1' }, { deduplication: { id: 'customValue', ttl: 5000, extend: true, replace: true }, delay: 400 });
    const second = await myQueue.add('house1', { color: 'white 2' }, { deduplication: { id: 'customValue', ttl: 5000, extend: true, replace: true }, delay: 400 });
    expect(second.id).toBe(first.id);
    expect(await myQueue.getDelayedCount()).toBe(1);
    const seen: unknown[] = [];
    const worker = closing(new Worker(name, async (job) => { seen.push(job.data); }, { connection }));
    await nextEvent(worker, 'completed');
    expect(seen).toEqual([{ color: 'white 2' }]);
  });

  it('removeDeduplicationKey is refused with NotSupportedError, and nothing is added', async () => {
    const myQueue = closing(new Queue(queueName(), { connection }));
    await expect(myQueue.removeDeduplicationKey('customValue')).rejects.toBeInstanceOf(NotSupportedError);
    expect(await myQueue.count()).toBe(0);
  });
});
