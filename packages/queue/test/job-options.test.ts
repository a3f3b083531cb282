/**
 * Per-job options (name, attempts, backoff, timeoutMs, dedupId, priority) kept in the row and answered
 * by the claim, and the payload size limit. Standalone: every option lives in the job's own row. How a
 * worker runs a job under them is job-runs.test.ts.
 */
import { uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, type JobId } from '@echo/protocol/queue';
import { DEFAULT_MAX_PAYLOAD_BYTES, exponential, PayloadTooLargeError, Queue } from '../src/index.js';
import { queuesPerFile } from './queues-per-file.js';
import { expectError, hgetall, rejection } from './worker-harness.js';

const { open, connection } = queuesPerFile('jo');

describe('per-job options in the row', () => {
  it('are written with the job and answered by the claim itself, on every admission path', async () => {
    const q = await open<string>();
    const backoff = exponential(10, 80);
    const { id } = await q.enqueue('a', { name: 'ship', attempts: 4, backoff, timeoutMs: 250 });
    const row = await hgetall(connection(), q.keys.job(id));
    expect(row).toMatchObject({ state: 'pending', attempts: '0', payload: '"a"', name: 'ship', max_attempts: '4', timeout_ms: '250' });
    expect(JSON.parse(row.backoff ?? '')).toEqual(backoff);
    expect((await q.getJob(id))?.name).toBe('ship');
    const job = await q.leases().claim(1000);
    expect(job).toMatchObject({ id, name: 'ship', maxAttempts: 4, backoff, timeoutMs: 250, attempts: 1 });

    const plain = await q.enqueue('b');
    expect(await q.leases().claim(1000)).toMatchObject({ id: plain.id, name: undefined, maxAttempts: undefined, backoff: undefined, timeoutMs: undefined });

    const later = await q.enqueue('c', { name: 'later', delayMs: 60_000 });
    expect(await hgetall(connection(), q.keys.job(later.id))).toMatchObject({ state: 'scheduled', name: 'later' });
    const keyed = await q.enqueue('d', { name: 'keyed', dedupId: uniqueName('d') });
    expect(await hgetall(connection(), q.keys.job(keyed.id))).toMatchObject({ state: 'pending', name: 'keyed' });
  });

  it('reach a lane claim too', async () => {
    const q = await open<string>();
    const group = 'USR0Nb1VTbfnu4';
    const { id } = await q.enqueueInLane(group, 'x', { name: 'lane-job', attempts: 2 });
    expect(await q.leases().laneClaim(1000)).toMatchObject({ id, group, name: 'lane-job', maxAttempts: 2 });
  });

  it('a bad option is refused with a typed error and writes nothing', async () => {
    const q = await open<string>();
    const bad = [
      { name: '' },
      { name: 'n'.repeat(257) },
      { attempts: 0 },
      { timeoutMs: -1 },
      { backoff: { type: 'fixed', ms: -1 } as const },
      { backoff: { type: 'exponential', base: 0, cap: 1 } as const },
    ];
    for (const options of bad) expectError(await rejection(q.enqueue('x', options)), InvalidArgumentError);
    expect(await connection().command('KEYS', `emq:{${q.name}}:*`)).toEqual([]);
  });
});

describe('dedupId with a delay', () => {
  it('a keyed delayed job is scheduled once; later admissions under the key report it', async () => {
    const q = await open<string>();
    const key = uniqueName('k');
    const first = await q.enqueue('a', { dedupId: key, delayMs: 60_000, name: 'later' });
    expect(first.status).toBe('enqueued');
    expect(await hgetall(connection(), q.keys.job(first.id))).toMatchObject({ state: 'scheduled', name: 'later' });
    const again = await q.enqueue('b', { dedupId: key, runAt: Date.now() + 1000 });
    expect(again).toMatchObject({ status: 'duplicate', existingId: first.id });
    const now = await q.enqueue('c', { dedupId: key });
    expect(now).toMatchObject({ status: 'duplicate', existingId: first.id });
    expect(await q.counts('scheduled', 'pending')).toEqual({ scheduled: 1, pending: 0 });
    expect(await q.getDedupJobId(key)).toBe(first.id);
  });

  it('the key keeps its TTL', async () => {
    const q = await open<string>();
    const key = uniqueName('k');
    await q.enqueue('a', { dedupId: key, dedupTtlMs: 60_000, delayMs: 10 });
    const ttl = Number(await connection().command('PTTL', q.keys.dedup(key)));
    expect(ttl).toBeGreaterThan(50_000);
  });
});

describe('priorities', () => {
  it('a higher priority is claimed first, FIFO within one, and keeps its place across a retry', async () => {
    const q = await open<string>();
    const a = await q.enqueue('a');
    const low = await q.enqueue('low', { priority: -1 });
    const c = await q.enqueue('c', { priority: 5 });
    const b = await q.enqueue('b', { priority: 0 });
    // A due time in the past still goes through the schedule (delayMs: 0 goes straight to pending).
    const d = await q.enqueue('d', { priority: 5, runAt: Date.now() - 1000 });
    expect(await q.maintenance().promote()).toBe(1);
    const e = await q.enqueue('e', { priority: 5, dedupId: uniqueName('p') });
    const order: JobId[] = [];
    for (const job of await q.leases().claimBatch(3, 1000)) order.push(job.id);
    expect(order).toEqual([c.id, d.id, e.id]);
    const first = await q.leases().claim(1000);
    expect(first?.id).toBe(a.id);
    // Retried, it comes back through the schedule and promote at its own priority: before b.
    const held = await q.leases().claimBatch(1, 1000);
    expect(held.map((j) => j.id)).toEqual([b.id]);
    const retried = held[0];
    if (retried === undefined) throw new Error('no job');
    expect(await q.leases().retry(retried, 0, 3, 'again')).toBe('scheduled');
    await q.enqueue('f');
    expect(await q.maintenance().promote()).toBe(1);
    expect((await q.leases().claim(1000))?.id).toBe(b.id);
    expect((await q.leases().claim(1000))?.rawPayload).toBe('"f"');
    expect((await q.leases().claim(1000))?.id).toBe(low.id);
  });

  it('a prioritized job reprocessed from the dead set keeps its priority', async () => {
    const q = await open<string>();
    const hi = await q.enqueue('hi', { priority: 3 });
    const job = await q.leases().claim(1000);
    if (job === undefined) throw new Error('no job');
    expect(await q.leases().retry(job, 0, 1, 'dead')).toBe('dead');
    const plain = await q.enqueue('plain');
    await q.reprocess(hi.id);
    expect((await q.leases().claim(1000))?.id).toBe(hi.id);
    expect((await q.leases().claim(1000))?.id).toBe(plain.id);
  });

  it('a bad priority is refused and writes nothing', async () => {
    const q = await open<string>();
    for (const priority of [1.5, 2_097_153, Number.NaN]) expectError(await rejection(q.enqueue('x', { priority })), InvalidArgumentError);
    expect(await connection().command('KEYS', `emq:{${q.name}}:*`)).toEqual([]);
  });
});

describe('payload size limit', () => {
  it('refuses an encoded payload over the default 1 MiB with a typed error, writing nothing', async () => {
    const q = await open<string>();
    expect(DEFAULT_MAX_PAYLOAD_BYTES).toBe(1_048_576);
    // JSON adds two quote bytes: this one encodes to exactly the limit, the next to one byte more.
    await q.enqueue('x'.repeat(DEFAULT_MAX_PAYLOAD_BYTES - 2));
    const error = await rejection(q.enqueue('x'.repeat(DEFAULT_MAX_PAYLOAD_BYTES - 1)));
    expectError(error, PayloadTooLargeError);
    expect(error).toMatchObject({ bytes: DEFAULT_MAX_PAYLOAD_BYTES + 1, limit: DEFAULT_MAX_PAYLOAD_BYTES });
    expect(await q.counts('pending')).toMatchObject({ pending: 1 });
  });

  it("counts UTF-8 bytes against a queue's own limit, on every admission path", async () => {
    const q = await open<string>({ maxPayloadBytes: 100 });
    const name = q.name;
    await q.enqueue('a'.repeat(98));
    // 49 two-byte characters and the quotes: 100 bytes; one more is over.
    await q.enqueue('é'.repeat(49));
    expectError(await rejection(q.enqueue('é'.repeat(50))), PayloadTooLargeError);
    expectError(await rejection(q.enqueue('é'.repeat(50), { delayMs: 10 })), PayloadTooLargeError);
    expectError(await rejection(q.enqueueInLane('USR0Nb1VTbfnu4', 'b'.repeat(200))), PayloadTooLargeError);
    expectError(await rejection(q.enqueueMany([{ payload: 'ok' }, { payload: 'c'.repeat(200) }])), PayloadTooLargeError);
    expect(await q.counts('pending', 'scheduled')).toMatchObject({ pending: 2, scheduled: 0 });
    const unlimited = await Queue.open<string>(name, { connection: connection(), maxPayloadBytes: Number.POSITIVE_INFINITY });
    await unlimited.enqueue('d'.repeat(200));
    for (const bad of [0, 1.5, -1]) expectError(await rejection(Queue.open(name, { connection: connection(), maxPayloadBytes: bad })), InvalidArgumentError);
  });
});
