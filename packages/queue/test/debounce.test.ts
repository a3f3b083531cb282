/**
 * Dedup modes (`dedupMode`): what an admission refused by its `dedupId` does to the job the key
 * names. `extend` restarts the key's window, `replace` gives the kept job the newest payload while
 * it waits, `debounce` does both and moves a scheduled kept job to the newest due time. The
 * `deduplicated` event names the job kept.
 */
import type { LifecycleEvent } from '@echo/protocol/queue';
import { InvalidArgumentError } from '@echo/protocol/queue';
import { startCluster, startRedis, type RedisCluster, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker, type QueueEvents } from '../src/index.js';
import { until } from './worker-harness.js';

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
}, 60_000);
afterAll(async () => {
  await server.stop();
});

async function open<T>(): Promise<Queue<T>> {
  return Queue.open<T>(`debounce-${String(++n)}-${String(process.pid)}`, { connect: { host: server.host, port: server.port, strictKeys: true } });
}

function record(events: QueueEvents): LifecycleEvent[] {
  const seen: LifecycleEvent[] = [];
  events.on('*', (event) => seen.push(event));
  return seen;
}

const pttl = async (q: Queue<string>, did: string): Promise<number> => Number(await q.connection.command('PTTL', q.keys.dedup(did)));

describe('dedupMode', () => {
  it("'extend' restarts the key's window on each refused add; the first job is kept as it was", async () => {
    const q = await open<string>();
    const first = await q.enqueue('a', { dedupId: 'ext', dedupTtlMs: 10_000, dedupMode: 'extend' });
    // The window as it stood just before the add: measured on the server, so the check below holds
    // however long a loaded machine takes between the two commands.
    let before = Number.POSITIVE_INFINITY;
    await until(async () => (before = await pttl(q, 'ext')) < 9_500, 'the window has run half a second');
    const again = await q.enqueue('b', { dedupId: 'ext', dedupTtlMs: 10_000, dedupMode: 'extend' });
    expect(again).toMatchObject({ status: 'duplicate', existingId: first.id });
    // Restarted: longer than before the add (untouched, it only shrinks).
    expect(await pttl(q, 'ext')).toBeGreaterThan(before);
    expect((await q.getJob(first.id))?.payload).toBe('a');
    await q.close();
  });

  it("'replace' gives the waiting kept job the newest payload, and says so in the deduplicated event", async () => {
    const q = await open<string>();
    const events = await q.events();
    const seen = record(events);
    const first = await q.enqueue('v1', { dedupId: 'rep', dedupMode: 'replace' });
    const second = await q.enqueue('v2', { dedupId: 'rep', dedupMode: 'replace' });
    expect(second).toMatchObject({ status: 'duplicate', existingId: first.id });
    expect((await q.getJob(first.id))?.payload).toBe('v2');
    expect(await q.counts('pending')).toEqual({ pending: 1 });
    // Once the kept job runs, a refused add no longer touches it.
    expect((await q.leases().claim(60_000))?.payload).toBe('v2');
    await q.enqueue('v3', { dedupId: 'rep', dedupMode: 'replace' });
    expect((await q.getJob(first.id))?.payload).toBe('v2');
    await until(() => seen.filter((e) => e.event === 'deduplicated').length === 2, 'both deduplicated events');
    const dedups = seen.filter((e) => e.event === 'deduplicated');
    expect(dedups.map((e) => [e.job, e.fields.mode, e.fields.replaced])).toEqual([
      [first.id, 'replace', '1'],
      [first.id, 'replace', '0'],
    ]);
    await events.close();
    await q.close();
  });

  it("'debounce' keeps one scheduled job: the latest payload, due the latest delay after the latest add", async () => {
    const q = await open<string>();
    const first = await q.enqueue('p1', { dedupId: 'deb', dedupTtlMs: 10_000, dedupMode: 'debounce', delayMs: 60_000 });
    const due1 = Number(await q.connection.command('ZSCORE', q.keys.schedule, first.id));
    // The window as it stood just before the add: measured on the server, so the check below holds
    // however long a loaded machine takes between the two commands.
    let before = Number.POSITIVE_INFINITY;
    await until(async () => (before = await pttl(q, 'deb')) < 9_500, 'the window has run half a second');
    const second = await q.enqueue('p2', { dedupId: 'deb', dedupTtlMs: 10_000, dedupMode: 'debounce', delayMs: 120_000 });
    expect(second).toMatchObject({ status: 'duplicate', existingId: first.id });
    const due2 = Number(await q.connection.command('ZSCORE', q.keys.schedule, first.id));
    expect(due2 - due1).toBeGreaterThanOrEqual(60_000);
    expect((await q.getJob(first.id))?.payload).toBe('p2');
    // Restarted: longer than before the add (untouched, it only shrinks).
    expect(await pttl(q, 'deb')).toBeGreaterThan(before);
    expect(await q.counts('scheduled', 'pending')).toEqual({ scheduled: 1, pending: 0 });
    await q.close();
  });

  it('without a mode a refused add changes nothing (the spec behaviour)', async () => {
    const q = await open<string>();
    const first = await q.enqueue('x1', { dedupId: 'plain', dedupTtlMs: 10_000 });
    let before = Number.POSITIVE_INFINITY;
    await until(async () => (before = await pttl(q, 'plain')) < 9_900, 'the window has run a little');
    await q.enqueue('x2', { dedupId: 'plain', dedupTtlMs: 10_000 });
    expect((await q.getJob(first.id))?.payload).toBe('x1');
    // Untouched: no longer than it was before the add.
    expect(await pttl(q, 'plain')).toBeLessThanOrEqual(before);
    await q.close();
  });

  it('refuses a mode it cannot honour before anything is written', async () => {
    const q = await open<string>();
    await expect(q.enqueue('x', { dedupMode: 'replace' })).rejects.toThrow(/dedupMode: needs a dedupId/);
    await expect(q.enqueue('x', { dedupId: 'e', dedupMode: 'extend' })).rejects.toThrow(InvalidArgumentError);
    await expect(q.enqueue('x', { dedupId: 'e', dedupMode: 'debounce' })).rejects.toThrow(/needs dedupTtlMs/);
    await expect(q.enqueue('x', { dedupId: 'e', dedupTtlMs: 5, dedupMode: 'merge' as 'extend' })).rejects.toThrow(/'extend', 'replace' or 'debounce'/);
    await expect(q.enqueue('x', { key: 'order-1', dedupMode: 'replace' })).rejects.toThrow(InvalidArgumentError);
    expect(await q.connection.command('KEYS', `emq:{${q.name}}:*`)).toEqual([]);
    await q.close();
  });
});

describe('dedup modes on a 3-master cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startCluster({ masters: 3 });
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  it('debounce updates the key, the kept row and the schedule in the queue slot', async () => {
    const q = await Queue.open<string>(`debounce-cluster-${String(process.pid)}`, { connect: { cluster: cluster.seeds, strictKeys: true } });
    const first = await q.enqueue('c1', { dedupId: 'c', dedupTtlMs: 10_000, dedupMode: 'debounce', delayMs: 30_000 });
    await q.enqueue('c2', { dedupId: 'c', dedupTtlMs: 10_000, dedupMode: 'debounce', delayMs: 90_000 });
    expect((await q.getJob(first.id))?.payload).toBe('c2');
    expect(await q.counts('scheduled')).toEqual({ scheduled: 1 });
    await q.close();
  });
});

describe('dedupKeepLast', () => {
  it('keeps the newest add refused while the kept job is active and admits it when that job ends; the key never lapses under it', async () => {
    const q = await open<string>();
    const seen: string[] = [];
    let resolveStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (resolveStarted = resolve));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = await Worker.start(q, async (job) => {
      seen.push(job.payload);
      if (job.payload === 'a') {
        resolveStarted();
        await gate;
      }
    }, { maintenanceMs: 0, blockMs: 60_000, concurrency: 4 });
    const first = await q.enqueue('a', { dedupId: 'kl', dedupTtlMs: 60_000, dedupKeepLast: true });
    await started;
    expect(await pttl(q, 'kl')).toBe(-1);
    for (const payload of ['b', 'c']) {
      expect(await q.enqueue(payload, { dedupId: 'kl', dedupKeepLast: true })).toMatchObject({ status: 'duplicate', existingId: first.id });
    }
    release();
    await until(() => seen.length === 2, 'the kept add ran');
    expect(seen).toEqual(['a', 'c']);
    await worker.close();
    await q.close();
  });

  it('refuses a non-boolean and a keepLast without a dedupId', async () => {
    const q = await open<string>();
    await expect(q.enqueue('a', { dedupId: 'x', dedupKeepLast: 'yes' as unknown as boolean })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.enqueue('a', { dedupKeepLast: true })).rejects.toBeInstanceOf(InvalidArgumentError);
    await q.close();
  });
});
