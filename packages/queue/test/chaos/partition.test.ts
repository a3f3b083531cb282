/**
 * Chaos: one worker is partitioned from the server (through a TCP proxy) while its completion is in
 * flight, and stays away longer than its lease. Another worker reaps the lapsed lease, runs the job
 * again and completes it. When the first worker comes back, its resent completion must be refused
 * and NOT be reported as its own: the job was completed once, so exactly one `completed` event and
 * one counted completion may exist.
 */
import { Connection } from '@echo/protocol/queue';
import { startRedis, uniqueName, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker, type QueueEvents } from '../../src/index.js';
import { EventTally, PartitionProxy, sleep, until } from './helpers.js';

let server: RedisServer;
let proxy: PartitionProxy;
let direct: Connection;
let viaProxy: Connection;
const workers: Worker[] = [];
let events: QueueEvents | undefined;

beforeAll(async () => {
  server = await startRedis();
  proxy = await PartitionProxy.start({ host: server.host, port: server.port });
  direct = await Connection.connect(server.url);
  viaProxy = await Connection.connect(proxy.url);
});

afterAll(async () => {
  proxy.heal();
  await Promise.race([Promise.all(workers.map((w) => w.close())), sleep(5_000)]);
  await events?.close();
  await viaProxy.close({ immediate: true });
  await direct.close();
  await proxy.close();
  await server.stop();
});

describe('chaos: a partitioned worker comes back after its lease lapsed', () => {
  it('does not report a completion that another worker made', async () => {
    const name = uniqueName('part');
    const queueA = await Queue.open<{ n: number }>(name, { connection: viaProxy });
    const queueB = await Queue.open<{ n: number }>(name, { connection: direct });
    const tally = new EventTally();
    events = await queueB.events();
    events.on(tally.listener);
    const options = { concurrency: 1, leaseMs: 1_000, maintenanceMs: 100, blockMs: 200 } as const;
    const errorsA: string[] = [];

    // Worker A (behind the proxy) takes the job and holds it until the test lets go.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let startedA = false;
    const a = await Worker.start(
      queueA,
      async () => {
        startedA = true;
        await held;
      },
      { ...options, onError: (e) => errorsA.push(e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)) },
    );
    workers.push(a);
    const { id } = await queueB.enqueue({ n: 1 });
    await until('A running the job', () => startedA, 5_000, 5);

    // Worker B (direct) is idle; its pump will reap A's lease once it lapses.
    const b = await Worker.start(queueB, () => undefined, options);
    workers.push(b);

    // A finishes while partitioned: its complete goes out and is swallowed, then its sockets drop
    // (the call fails as lost, maybe-landed) and it cannot reconnect for longer than the lease.
    proxy.blackhole();
    release();
    await sleep(100);
    proxy.refuse();
    proxy.cut();
    await until('B completed the job A lost', () => b.stats().completed === 1, 10_000, 10);
    proxy.heal();
    await until('A settled its stale completion', () => a.running === 0, 10_000, 10);
    await sleep(300);

    const completed = (await queueB.counts('completed')).completed;
    const figures = {
      completed,
      completedEvents: tally.completed.get(id) ?? 0,
      statsA: a.stats(),
      statsB: b.stats(),
      refused: proxy.refused,
      reconnectsA: viaProxy.stats().reconnects,
      errorsA,
    };
    console.log(`[chaos:partition] ${JSON.stringify(figures)}`);

    // The store accepted one completion (the token fence refused nothing it should accept).
    expect(completed).toBe(1);
    expect(b.stats().completed).toBe(1);
    // A's resent completion found the job gone: that is a lost lease, not a completion of A's.
    expect(a.stats().completed).toBe(0);
    expect(a.stats().lost).toBe(1);
    // And the job was reported completed exactly once.
    expect(tally.completed.get(id)).toBe(1);
  }, 60_000);
});
