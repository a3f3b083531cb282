/**
 * `durability: 'replicated'`: an admission answers only once a replica confirmed it (`WAIT`), and a
 * shortfall (no replica, or fewer than asked) is a typed error that leaves the job on the primary.
 */
import { Connection, InvalidArgumentError, mintId, NotReplicatedError } from '@echo/protocol/queue';
import { startRedis, waitFor, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';

let primary: RedisServer;
let replica: RedisServer;
let lonely: RedisServer;
let conn: Connection;

beforeAll(async () => {
  primary = await startRedis({ args: ['--repl-diskless-sync-delay', '0'] });
  replica = await startRedis({ args: ['--replicaof', primary.host, String(primary.port)] });
  lonely = await startRedis();
  const admin = replica.client();
  try {
    await waitFor(async () => (await admin.info('replication')).includes('master_link_status:up'), { what: 'the replica to attach', timeoutMs: 15_000, everyMs: 25 });
  } finally {
    admin.disconnect();
  }
  conn = await Connection.connect({ url: primary.url, strictKeys: true });
}, 60_000);

afterAll(async () => {
  await conn.close();
  await Promise.all([replica.stop(), primary.stop(), lonely.stop()]);
});

describe("durability: 'replicated'", () => {
  it('answers once the replica holds the job', async () => {
    const queue = await Queue.open<number>('dur-ok', { connection: conn, durability: 'replicated' });
    const onReplica = replica.client();
    try {
      const started = performance.now();
      for (let i = 0; i < 20; i++) {
        const { id } = await queue.enqueue(i);
        // No polling: the replica confirmed the write before enqueue answered.
        expect(await onReplica.exists(queue.keys.job(id))).toBe(1);
      }
      console.log(JSON.stringify({ replicatedEnqueueMs: (performance.now() - started) / 20 }));
      const many = await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
      for (const r of many) {
        expect(r.status).toBe('enqueued');
        expect(await onReplica.exists(queue.keys.job(r.id as never))).toBe(1);
      }
    } finally {
      onReplica.disconnect();
    }
  });

  it('fails typed when fewer replicas than asked confirm, and leaves the job on the primary', async () => {
    // One replica attached, two asked: a partial ack is a shortfall like none.
    const partial = await Queue.open<number>('dur-partial', { connection: conn, durability: { replicas: 2, timeoutMs: 100 } });
    const id = mintId('JOB');
    const error = await partial.enqueue(1, { id }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotReplicatedError);
    expect(error).toMatchObject({ acknowledged: 1, required: 2, timeoutMs: 100, code: 'not_replicated' });
    expect(await conn.command('EXISTS', partial.keys.job(id))).toBe(1);
    // A resend is idempotent by id: a duplicate verdict, and the same shortfall.
    await expect(partial.enqueue(1, { id })).rejects.toBeInstanceOf(NotReplicatedError);
    expect(await partial.counts('pending')).toEqual({ pending: 1 });
  });

  it('answers a batch with per-item failures, ids kept, when no replica confirms', async () => {
    const alone = await Connection.connect({ url: lonely.url });
    try {
      const queue = await Queue.open<number>('dur-none', { connection: alone, durability: { replicas: 1, timeoutMs: 50 } });
      const started = Date.now();
      const results = await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
      expect(Date.now() - started).toBeLessThan(5_000);
      for (const r of results) {
        expect(r.status).toBe('failed');
        expect(r.status === 'failed' && r.error).toBeInstanceOf(NotReplicatedError);
      }
      // The jobs stand on the primary.
      expect(await queue.counts('pending')).toEqual({ pending: 3 });
    } finally {
      await alone.close();
    }
  });

  it('refuses a malformed durability option before any admission', async () => {
    for (const durability of [{ replicas: 0 }, { replicas: 1, timeoutMs: 0 }, { replicas: 1.5 }, 'quorum']) {
      await expect(Queue.open('dur-bad', { connection: conn, durability: durability as never })).rejects.toBeInstanceOf(InvalidArgumentError);
    }
  });
});
