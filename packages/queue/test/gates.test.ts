/**
 * The claim gates the server enforces: the global concurrency cap and the rate limit, shared by
 * every worker on any connection, plus `rateLimit(ms)`. Standalone: every gate key shares the
 * queue's slot.
 */
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, InvalidArgumentError } from '@echo/protocol/queue';
import { BatchWorker, Queue, Worker } from '../src/index.js';
import { expectError, rejection, until } from './worker-harness.js';

let conn: Connection;
let other: Connection;
const opened: Queue[] = [];

beforeAll(async () => {
  const { url } = await useRedis();
  conn = await Connection.connect({ url, strictKeys: true });
  other = await Connection.connect({ url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  for (const q of opened) {
    const keys = (await q.connection.command('KEYS', `emq:{${q.name}}:*`)) as string[];
    if (keys.length > 0) await q.connection.command('DEL', ...keys);
  }
  await conn.close();
  await other.close();
});

async function open<T>(name = uniqueName('gt'), on: Connection = conn): Promise<Queue<T>> {
  const q = await Queue.open<T>(name, { connection: on });
  opened.push(q);
  return q;
}

async function fill(q: Queue<string>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await q.enqueue(`j${String(i)}`);
}

describe('global concurrency', () => {
  it('caps active jobs across claims of every kind until lifted', async () => {
    const q = await open<string>();
    await fill(q, 5);
    await q.setGlobalConcurrency(2);
    const first = await q.leases().claimBatch(5, 30_000);
    expect(first).toHaveLength(2);
    expect(await q.leases().claim(30_000)).toBeUndefined();
    const [done] = first;
    if (done === undefined) throw new Error('no job');
    // The round completes first, then claims into the room it made.
    const round = await q.leases().completeAndClaim([done], 5, 30_000);
    expect(round.completions).toEqual(['ok']);
    expect(round.claimed).toHaveLength(1);
    expect(await q.counts('active', 'pending')).toEqual({ active: 2, pending: 2 });
    await q.setGlobalConcurrency(null);
    expect(await q.leases().claimBatch(5, 30_000)).toHaveLength(2);
  });

  it('caps lane claims too', async () => {
    const q = await open<string>();
    const group = 'USR0Nb1VTbfnu4';
    for (let i = 0; i < 3; i++) await q.enqueueInLane(group, `l${String(i)}`);
    await q.setGlobalConcurrency(1);
    expect(await q.leases().laneBatchClaim(30_000)).toHaveLength(1);
    expect(await q.leases().laneClaim(30_000)).toBeUndefined();
  });

  it('a bad cap is refused and writes nothing', async () => {
    const q = await open<string>();
    for (const bad of [0, -1, 1.5]) expectError(await rejection(q.setGlobalConcurrency(bad)), InvalidArgumentError);
    expect(await conn.command('EXISTS', q.keys.meta)).toBe(0);
  });
});

describe('rate limit', () => {
  it('admits max claims per window, then refuses with the time left, until lifted', async () => {
    const q = await open<string>();
    await fill(q, 6);
    await q.setRateLimit({ max: 3, durationMs: 60_000 });
    expect(await q.leases().claimBatch(6, 30_000)).toHaveLength(3);
    expect(await q.leases().claim(30_000)).toBeUndefined();
    const ttl = await q.getRateLimitTtl();
    expect(ttl).toBeGreaterThan(50_000);
    const round = await q.leases().completeAndClaim([], 2, 30_000);
    expect(round.claimed).toEqual([]);
    expect(round.limitedMs).toBeGreaterThan(50_000);
    await q.setRateLimit(null);
    expect(await q.leases().claimBatch(6, 30_000)).toHaveLength(3);
    expect(await q.getRateLimitTtl()).toBe(0);
  });

  it('a changed limit starts a fresh window; lanes count against it', async () => {
    const q = await open<string>();
    await q.setRateLimit({ max: 1, durationMs: 60_000 });
    await q.enqueueInLane('USR0Nb1VTbfnu4', 'a');
    await q.enqueueInLane('USR0Nb1VTbfnu4', 'b');
    expect(await q.leases().laneClaim(30_000)).toBeDefined();
    expect(await q.leases().laneClaim(30_000)).toBeUndefined();
    await q.setRateLimit({ max: 5, durationMs: 60_000 });
    expect(await q.leases().laneClaim(30_000)).toBeDefined();
  });

  it('rateLimit(ms) closes the window for that long; without a limit it writes nothing', async () => {
    const q = await open<string>();
    await fill(q, 2);
    expect(await q.rateLimit(5_000)).toBe(false);
    expect(await conn.command('EXISTS', q.keys.limiter)).toBe(0);
    await q.setRateLimit({ max: 100, durationMs: 1000 });
    expect(await q.rateLimit(60_000)).toBe(true);
    expect(await q.leases().claim(30_000)).toBeUndefined();
    expect(await q.getRateLimitTtl()).toBeGreaterThan(50_000);
  });

  it('resetRateLimit() opens a closed window at once and keeps the limit [TS]', async () => {
    const q = await open<string>();
    await fill(q, 2);
    await q.setRateLimit({ max: 1, durationMs: 60_000 });
    expect(await q.rateLimit(60_000)).toBe(true);
    expect(await q.leases().claim(30_000)).toBeUndefined();
    expect(await q.resetRateLimit()).toBe(true);
    expect(await q.getRateLimitTtl()).toBe(0);
    expect(await q.leases().claim(30_000)).toBeDefined();
    // The limit stays: the fresh window admitted one claim and refuses the next.
    expect(await q.leases().claim(30_000)).toBeUndefined();
    expect(await q.resetRateLimit()).toBe(true);
    expect(await q.resetRateLimit()).toBe(false);
  });

  it('a bad limit is refused and writes nothing', async () => {
    const q = await open<string>();
    for (const bad of [{ max: 0, durationMs: 10 }, { max: 1, durationMs: 0 }, { max: 1.5, durationMs: 10 }]) {
      expectError(await rejection(q.setRateLimit(bad)), InvalidArgumentError);
    }
    expectError(await rejection(q.rateLimit(0)), InvalidArgumentError);
    expect(await conn.command('EXISTS', q.keys.meta)).toBe(0);
  });

  it('workers on two connections share one limit, and wake when the window reopens', async () => {
    const name = uniqueName('gt');
    const a = await open<string>(name, conn);
    const b = await open<string>(name, other);
    const max = 10;
    const durationMs = 400;
    await a.setRateLimit({ max, durationMs });
    await fill(a, 100);
    const done: number[] = [];
    const options = { concurrency: 4, maintenanceMs: 0, blockMs: 5_000, onError: (): void => undefined };
    const started = Date.now();
    const workers = await Promise.all([
      Worker.start(a, () => void done.push(Date.now()), options),
      Worker.start(a, () => void done.push(Date.now()), options),
      Worker.start(b, () => void done.push(Date.now()), options),
      Worker.start(b, () => void done.push(Date.now()), options),
    ]);
    try {
      // Three windows' worth; blockMs is far longer than a window, so only the reopening wakes them.
      await until(() => done.length >= 3 * max, 'three windows processed', 10_000);
      const elapsed = Date.now() - started;
      const windows = Math.ceil(elapsed / durationMs) + 1;
      expect(done.length).toBeLessThanOrEqual(max * windows);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('a BatchWorker under a rate limit wakes when the window reopens', async () => {
    const q = await open<string>();
    await q.setRateLimit({ max: 5, durationMs: 300 });
    await fill(q, 15);
    let done = 0;
    const worker = await BatchWorker.start(q, (jobs) => {
      done += jobs.length;
      return 'ok';
    }, { size: 10, concurrency: 1, maintenanceMs: 0, blockMs: 5_000, onError: () => undefined });
    try {
      await until(() => done === 15, 'three windows of five', 5_000);
    } finally {
      await worker.close();
    }
  });
});
