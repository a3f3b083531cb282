/**
 * Chaos: while a worker runs, an operator moves the store to another wire major (`{emq}:version` =
 * `echomq:4.0.0`) and drops every client. On reconnect the fence refuses (protocol.md §10: fatal on
 * a reconnect), so the worker must stop by itself with the fence error and never touch the store
 * again: no script call, no reconnect attempt, no claim of a job that arrives later.
 */
import { Connection, FENCE_KEY, mintId, VersionFenceError, WIRE_VERSION } from '@echo/protocol/extend';
import { startRedis, uniqueName, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { sleep, until } from './helpers.js';

let server: RedisServer;
let admin: Redis;
let conn: Connection;
let worker: Worker | undefined;
let fenceBefore: string | null = null;

beforeAll(async () => {
  server = await startRedis();
  admin = server.client();
  conn = await Connection.connect(server.url);
  fenceBefore = await admin.get(FENCE_KEY);
});

afterAll(async () => {
  // Fence tests MUST restore the key (protocol.md §10), even on a server of their own.
  if (fenceBefore === null) await admin.del(FENCE_KEY);
  else await admin.set(FENCE_KEY, fenceBefore);
  await conn.close({ immediate: true });
  await worker?.close();
  admin.disconnect();
  await server.stop();
});

/** `INFO` fields as numbers: `cmdstat_<name>` calls, and plain `name:value` counters. */
async function info(section: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await admin.info(section)).split('\r\n')) {
    const stat = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (stat) out.set(`cmd:${stat[1] ?? ''}`, Number(stat[2]));
    const plain = /^([a-z_]+):(\d+)$/.exec(line);
    if (plain) out.set(plain[1] ?? '', Number(plain[2]));
  }
  return out;
}

describe('chaos: the version fence moves under a running worker', () => {
  it('stops the worker by itself with version_major_mismatch, and it writes nothing afterwards', async () => {
    expect(fenceBefore).toBe(WIRE_VERSION);
    const queue = await Queue.open<{ n: number }>(uniqueName('fence'), { connection: conn });
    const runs: string[] = [];
    const errors: unknown[] = [];
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const w = await Worker.start(
      queue,
      async (job) => {
        runs.push(job.id);
        // One job is still running when the fence moves; it ends only after the worker stopped.
        if (job.payload.n < 0) await held;
      },
      { concurrency: 4, leaseMs: 1_000, maintenanceMs: 100, blockMs: 200, closeTimeoutMs: 2_000, onError: (e) => errors.push(e) },
    );
    worker = w;
    // It works before the change.
    await queue.enqueueMany(Array.from({ length: 20 }, (_, n) => ({ payload: { n } })));
    await until('20 completions', () => w.stats().completed === 20, 10_000, 10);
    const { id: slow } = await queue.enqueue({ n: -1 });
    await until('the slow job running', () => runs.includes(slow), 5_000, 10);

    await admin.set(FENCE_KEY, 'echomq:4.0.0');
    const changedAt = Date.now();
    const killed = Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
    await until('the worker stopped by itself', () => w.fatalError !== undefined, 15_000, 10);
    const stoppedMs = Date.now() - changedAt;
    const fatal = w.fatalError;
    expect(fatal).toBeInstanceOf(VersionFenceError);
    expect((fatal as VersionFenceError).code).toBe('version_major_mismatch');
    // Bounds with room for a loaded machine: what they catch is a worker that never stops or a close
    // that waits out a lease (or hangs), not a slow one.
    expect(stoppedMs).toBeLessThan(15_000);

    // From now on the worker must be silent. Snapshot; let the running job finish (its settlement
    // must not reach the store) and close; wait; hand it a job the raw way; wait again.
    const before = await info('all');
    const snap = async (): Promise<Record<string, unknown>> => ({
      pending: await admin.zcard(queue.keys.pending),
      active: await admin.zcard(queue.keys.active),
      schedule: await admin.zcard(queue.keys.schedule),
      completed: await admin.hget(queue.keys.metricsCompleted, 'count'),
    });
    const setsBefore = await snap();
    release();
    const closing = Date.now();
    await w.close();
    const closeMs = Date.now() - closing;
    await sleep(1_000);
    const id = mintId('JOB');
    await admin.hset(queue.keys.job(id), 'state', 'pending', 'attempts', '0', 'payload', JSON.stringify({ n: 99 }));
    await admin.zadd(queue.keys.pending, 0, id);
    await admin.lpush(queue.keys.wake, '1');
    await sleep(1_000);
    const after = await info('all');
    const setsAfter = await snap();

    const delta = (key: string): number => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    const figures = {
      killed,
      stoppedMs,
      closeMs,
      fatal: String(fatal),
      connectionStatus: queue.connection.status,
      evalshaDelta: delta('cmd:evalsha'),
      connectionsDelta: delta('total_connections_received'),
      connectedClients: after.get('connected_clients'),
      ranAfter: runs.filter((r) => r === id).length,
      setsBefore,
      setsAfter,
      errors: errors.map((e) => (e instanceof Error ? e.constructor.name : String(e))),
    };
    console.log(`[chaos:fence-change] ${JSON.stringify(figures)}`);

    expect(queue.connection.status).toBe('fatal');
    expect(figures.evalshaDelta).toBe(0);
    // No reconnect attempt either: the fence is fatal, so the connector gave up for good.
    expect(figures.connectionsDelta).toBe(0);
    expect(figures.connectedClients).toBe(1);
    expect(figures.ranAfter).toBe(0);
    expect(setsAfter).toEqual({ ...setsBefore, pending: (setsBefore.pending as number) + 1 });
    expect(await admin.hget(queue.keys.job(id), 'attempts')).toBe('0');
    // The job that was running stays where the stop left it (active, token 1), and was not counted.
    expect(await admin.zscore(queue.keys.active, slow)).not.toBeNull();
    expect(await admin.hget(queue.keys.job(slow), 'attempts')).toBe('1');
    expect(w.stats().completed).toBe(20);
    expect(closeMs).toBeLessThan(10_000);
  }, 60_000);
});
