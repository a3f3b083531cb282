/**
 * [TS] A business key beside a dedup id (BullMQ's `jobId` next to its `deduplication`): the key is
 * checked first, then the dedup id; the admitted job holds both, each released by its own rule (the
 * dedup id when the job ends, the key `keyRetentionMs` later, both at once when the job is removed).
 * `releaseDedup` frees a dedup id early. Run with the run-time key law on (`strictKeys`).
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../src/index.js';
import { queuesPerFile } from './queues-per-file.js';

const files = queuesPerFile('kd');

function open(): Promise<Queue<string>> {
  return files.open<string>();
}

describe('a business key beside a dedup id', () => {
  it('answers the job holding the key before looking at the dedup id, and the one holding the dedup id next', async () => {
    const q = await open();
    const first = await q.enqueue('a', { key: 'order-1', dedupId: 'd' });
    expect(first.status).toBe('enqueued');
    const sameKey = await q.enqueue('b', { key: 'order-1', dedupId: 'other' });
    expect(sameKey).toEqual({ status: 'duplicate', id: first.id, existingId: first.id });
    const sameDedup = await q.enqueue('c', { key: 'order-2', dedupId: 'd' });
    expect(sameDedup).toEqual({ status: 'duplicate', id: first.id, existingId: first.id });
    expect((await q.getJobByKey('order-1'))?.id).toBe(first.id);
    expect(await q.getJobByKey('order-2')).toBeUndefined();
    expect(await q.getDedupJobId('other')).toBeUndefined();
    expect((await q.counts('pending')).pending).toBe(1);
  });

  it('frees the dedup id when the job ends and keeps the key its window; a timed admission the same', async () => {
    const q = await open();
    const first = await q.enqueue('a', { key: 'order-1', dedupId: 'd', delayMs: 1 });
    await q.promote(first.id);
    const job = await q.leases().claim(30_000);
    expect(job?.id).toBe(first.id);
    if (job === undefined) return;
    await q.leases().complete(job, 'ok');
    expect(await q.getDedupJobId('d')).toBeUndefined();
    expect(await q.getDedupJobId('order-1')).toBe(first.id);
    const again = await q.enqueue('b', { key: 'order-1', dedupId: 'd' });
    expect(again).toEqual({ status: 'duplicate', id: first.id, existingId: first.id });
    expect((await q.enqueue('c', { key: 'order-2', dedupId: 'd' })).status).toBe('enqueued');
  });

  it('frees both when the job is removed', async () => {
    const q = await open();
    const first = await q.enqueue('a', { key: 'order-1', dedupId: 'd', dedupTtlMs: 60_000 });
    await q.remove(first.id);
    expect(await q.getDedupJobId('order-1')).toBeUndefined();
    // A dedup id with a ttl is left to its ttl by a removal, as Echo releases ttl keys.
    expect(await q.getDedupJobId('d')).toBe(first.id);
    expect(await q.releaseDedup('d', first.id)).toBe(true);
    expect((await q.enqueue('b', { key: 'order-1', dedupId: 'd' })).status).toBe('enqueued');
  });
});

describe('releaseDedup', () => {
  it('frees a dedup id early; with a job id, only while the id names that job', async () => {
    const q = await open();
    const first = await q.enqueue('a', { dedupId: 'd' });
    const other = await q.enqueue('b');
    expect(await q.releaseDedup('d', other.id)).toBe(false);
    expect(await q.getDedupJobId('d')).toBe(first.id);
    expect(await q.releaseDedup('d')).toBe(true);
    expect(await q.releaseDedup('d')).toBe(false);
    expect((await q.enqueue('c', { dedupId: 'd' })).status).toBe('enqueued');
  });
});
