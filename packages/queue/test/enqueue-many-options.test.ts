/**
 * Per-item options in `enqueueMany`: row options, priority, a time and an idempotency key, each
 * item with its own verdict, all in one pipeline; plain items keep their own script.
 */
import { Connection, InvalidArgumentError, KindError } from '@echo/protocol/queue';
import { startRedis, uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixed, Queue } from '../src/index.js';
import { hgetall } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

async function open(): Promise<Queue<string>> {
  return Queue.open<string>(uniqueName('many'), { connection: conn });
}

describe('enqueueMany with per-item options', () => {
  it('writes each item as enqueue would: options in the row, priority in the score, times in the schedule', async () => {
    const q = await open();
    const runAt = Date.now() + 3_600_000;
    const results = await q.enqueueMany([
      { payload: 'plain' },
      { payload: 'named', name: 'ship', attempts: 3, backoff: fixed(20), timeoutMs: 500 },
      { payload: 'urgent', priority: 7 },
      { payload: 'later', delayMs: 60_000, name: 'later' },
      { payload: 'at', runAt },
      { payload: 'now', delayMs: 0 },
    ]);
    expect(results.map((r) => r.status)).toEqual(['enqueued', 'enqueued', 'enqueued', 'enqueued', 'enqueued', 'enqueued']);
    const [plain, named, urgent, later, at, now] = results.map((r) => r.id);
    expect(await hgetall(conn, q.keys.job(named as never))).toMatchObject({ state: 'pending', name: 'ship', max_attempts: '3', timeout_ms: '500' });
    expect(Number(await conn.command('ZSCORE', q.keys.pending, urgent as string))).toBe(-7);
    expect(Number(await conn.command('ZSCORE', q.keys.pending, plain as string))).toBe(0);
    expect(Number(await conn.command('ZSCORE', q.keys.pending, now as string))).toBe(0);
    expect(await hgetall(conn, q.keys.job(later as never))).toMatchObject({ state: 'scheduled', name: 'later' });
    expect(Number(await conn.command('ZSCORE', q.keys.schedule, at as string))).toBe(runAt);
    expect(await q.counts('pending', 'scheduled')).toEqual({ pending: 4, scheduled: 2 });
    // Priority first, then mint order: the claim reads the options back.
    expect(await q.leases().claim(1000)).toMatchObject({ id: urgent });
    expect(await q.leases().claim(1000)).toMatchObject({ id: plain });
    expect(await q.leases().claim(1000)).toMatchObject({ id: named, name: 'ship', maxAttempts: 3, timeoutMs: 500 });
  });

  it('answers a verdict per item: duplicates by id and by idempotency key, a wrong namespace, in input order', async () => {
    const q = await open();
    const first = await q.enqueue('first', { dedupId: 'order-1' });
    const results = await q.enqueueMany([
      { payload: 'again', dedupId: 'order-1' },
      { payload: 'fresh', dedupId: 'order-2', delayMs: 60_000 },
      { payload: 'dup-id', id: first.id, priority: 2 },
      { payload: 'kind', id: 'USR0Nb1VTbfnu4', name: 'n' },
      { payload: 'ok', name: 'n' },
    ]);
    expect(results[0]).toMatchObject({ status: 'duplicate', existingId: first.id });
    expect(results[1]).toMatchObject({ status: 'enqueued' });
    expect(await q.getDedupJobId('order-2')).toBe(results[1]?.id);
    expect(await q.getState(results[1]?.id as string)).toBe('scheduled');
    expect(results[2]).toMatchObject({ status: 'duplicate', id: first.id });
    expect(results[3]?.status).toBe('failed');
    expect(results[3]?.status === 'failed' ? results[3].error : undefined).toBeInstanceOf(KindError);
    expect(results[4]).toMatchObject({ status: 'enqueued' });
  });

  it('admits an item with a business key through its keyed admission, as enqueue does', async () => {
    const q = await open();
    const first = await q.enqueueMany([{ payload: 'a', key: 'order-42', keyRetentionMs: 5_000 }, { payload: 'b', key: 'order-43', delayMs: 60_000 }]);
    expect(first.map((r) => r.status)).toEqual(['enqueued', 'enqueued']);
    expect(await hgetall(conn, q.keys.job(first[0]?.id as never))).toMatchObject({ state: 'pending', dedup: 'order-42', dedup_keep: '5000' });
    expect(await q.getState(first[1]?.id as string)).toBe('scheduled');
    const again = await q.enqueueMany([{ payload: 'c', key: 'order-42' }, { payload: 'd', key: 'order-43' }]);
    expect(again[0]).toMatchObject({ status: 'duplicate', existingId: first[0]?.id });
    expect(again[1]).toMatchObject({ status: 'duplicate', existingId: first[1]?.id });
    expect(await q.counts('pending', 'scheduled')).toEqual({ pending: 1, scheduled: 1 });
  });

  it('refuses a bad item before anything is sent', async () => {
    const q = await open();
    await expect(q.enqueueMany([{ payload: 'a' }, { payload: 'b', runAt: Date.now(), delayMs: 5 }])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.enqueueMany([{ payload: 'a' }, { payload: 'b', key: 'k', dedupTtlMs: 5 }])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.enqueueMany([{ payload: 'a' }, { payload: 'b', keyRetentionMs: 5 }])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.enqueueMany([{ payload: 'a' }, { payload: 'b', priority: 0.5 }])).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await q.counts('pending', 'scheduled')).toEqual({ pending: 0, scheduled: 0 });
  });

  it('sends plain items through enqueue_many and the rest in the same pipeline', async () => {
    // A server of its own: commandstats must count this call alone.
    const server = await startRedis();
    const q = await Queue.open<string>('many-stats', { connect: { host: server.host, port: server.port } });
    try {
      const batch = (): Parameters<typeof q.enqueueMany>[0] => [
        ...Array.from({ length: 5 }, (_, i) => ({ payload: `p${String(i)}` })),
        { payload: 'o', priority: 1 },
        { payload: 'k', dedupId: 'k1' },
      ];
      // The first call loads the scripts (NOSCRIPT, then a resend); the second is the steady state.
      await q.enqueueMany(batch());
      await q.connection.command('CONFIG', 'RESETSTAT');
      await q.enqueueMany(batch());
      const stats = String(await q.connection.command('INFO', 'commandstats'));
      // Three scripts (enqueue_many, enqueue_many_with, enqueue_dedup), one call each.
      expect(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1]).toBe('3');
      expect(await q.counts('pending')).toEqual({ pending: 13 });
    } finally {
      await q.close();
      await server.stop();
    }
  });
});
