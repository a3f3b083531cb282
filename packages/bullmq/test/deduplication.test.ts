import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker } from '../src/index.js';
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
    // As in BullMQ, the latest add replaces the delayed job: the one job left has its id.
    expect(second.id).not.toBe(first.id);
    expect(await myQueue.getJob(first.id)).toBeUndefined();
    expect(await myQueue.getDelayedCount()).toBe(1);
    const seen: unknown[] = [];
    const worker = closing(new Worker(name, async (job) => { seen.push(job.data); }, { connection }));
    await nextEvent(worker, 'completed');
    expect(seen).toEqual([{ color: 'white 2' }]);
  });

  it('a deduplicated add takes the next number, as in BullMQ: the kept job is 1, the next one added is 3', async () => {
    const myQueue = closing(new Queue(queueName(), { connection }));
    const first = await myQueue.add('house', {}, { deduplication: { id: 'customValue' } });
    const refused = await myQueue.add('house', {}, { deduplication: { id: 'customValue' } });
    const other = await myQueue.add('house', {});
    expect([first.id, refused.id, other.id]).toEqual(['1', '1', '3']);
    expect(first.deduplicationId).toBe('customValue');
    expect((await myQueue.getJob('1'))?.deduplicationId).toBe('customValue');
  });

  it('replace mode gives the delayed job the latest add, with its number: getJob finds it by that number only', async () => {
    const myQueue = closing(new Queue(queueName(), { connection }));
    await myQueue.add('house', { color: 'white' }, { deduplication: { id: 'customValue', replace: true }, delay: 5000 });
    const second = await myQueue.add('house', { color: 'black' }, { deduplication: { id: 'customValue', replace: true }, delay: 5000 });
    expect(second.id).toBe('2');
    expect(await myQueue.getDeduplicationJobId('customValue')).toBe('2');
    expect((await myQueue.getJob('2'))?.data).toEqual({ color: 'black' });
    expect(await myQueue.getJob('1')).toBeUndefined();
    expect(await myQueue.getDelayedCount()).toBe(1);
  });

  it('replace mode runs the delayed job when the latest add asked, as BullMQ swaps the delayed job for the new one', async () => {
    const name = queueName();
    const myQueue = closing(new Queue(name, { connection }));
    await myQueue.add('house', { color: 'white' }, { deduplication: { id: 'v', replace: true }, delay: 60_000 });
    await myQueue.add('house', { color: 'black' }, { deduplication: { id: 'v', replace: true }, delay: 100 });
    const worker = closing(new Worker(name, async (job) => job.data, { connection }));
    const [job, result] = await nextEvent<[{ id: string }, unknown]>(worker, 'completed', 5000);
    expect(job.id).toBe('2');
    expect(result).toEqual({ color: 'black' });
  });

  it('a jobId beside a deduplication id: the id is checked first, then the deduplication id; the job holds both', async () => {
    const myQueue = closing(new Queue(queueName(), { connection }));
    const a1 = await myQueue.add('house', { n: 1 }, { jobId: 'a1', deduplication: { id: 'customValue' } });
    const a2 = await myQueue.add('house', { n: 2 }, { jobId: 'a2', deduplication: { id: 'customValue' } });
    expect(a1.id).toBe('a1');
    expect(a2.id).toBe('a1');
    expect(await myQueue.getJob('a2')).toBeUndefined();
    const again = await myQueue.add('house', { n: 3 }, { jobId: 'a1', deduplication: { id: 'otherValue' } });
    expect(again.id).toBe('a1');
    expect(await myQueue.getDeduplicationJobId('otherValue')).toBeUndefined();
    expect(await myQueue.count()).toBe(1);
  });

  it('removeDeduplicationKey frees the id while the job waits: the next add is added', async () => {
    const myQueue = closing(new Queue(queueName(), { connection }));
    const first = await myQueue.add('house', {}, { deduplication: { id: 'customValue' } });
    expect(await myQueue.removeDeduplicationKey('customValue')).toBe(1);
    expect(await myQueue.removeDeduplicationKey('customValue')).toBe(0);
    const second = await myQueue.add('house', {}, { deduplication: { id: 'customValue' } });
    expect(second.id).not.toBe(first.id);
    expect(await myQueue.getWaitingCount()).toBe(2);
    // A job frees its id only while the id still names it.
    expect(await first.removeDeduplicationKey()).toBe(false);
    expect(await second.removeDeduplicationKey()).toBe(true);
  });

  it('removing a job frees its deduplication id, a ttl one too', async () => {
    const myQueue = closing(new Queue(queueName(), { connection }));
    const first = await myQueue.add('house', {}, { deduplication: { id: 'customValue', ttl: 60_000 } });
    await first.remove();
    expect(await myQueue.getDeduplicationJobId('customValue')).toBeUndefined();
    const second = await myQueue.add('house', {}, { deduplication: { id: 'customValue', ttl: 60_000 } });
    expect(second.id).not.toBe(first.id);
  });
});
