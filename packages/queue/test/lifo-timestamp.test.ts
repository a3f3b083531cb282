/**
 * LIFO admission (`lifo: true`: claimed before the waiting jobs of its priority, the newest first)
 * and a caller-set `timestamp` (the job's created time as the app sees it, for imports).
 */
import { InvalidArgumentError, UnknownOptionError } from '@echo/protocol/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type EnqueueOptions } from '../src/index.js';

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
}, 60_000);
afterAll(async () => {
  await server.stop();
});

async function open<T>(): Promise<Queue<T>> {
  return Queue.open<T>(`lifo-${String(++n)}-${String(process.pid)}`, { connect: { host: server.host, port: server.port, strictKeys: true } });
}

async function drainOrder(q: Queue<string>): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const job = await q.leases().claim(60_000);
    if (job === undefined) return out;
    out.push(job.payload);
  }
}

describe('lifo', () => {
  it('is claimed before the jobs already waiting at its priority, the newest first', async () => {
    const q = await open<string>();
    await q.enqueue('a');
    await q.enqueue('b');
    await q.enqueue('c', { lifo: true });
    await q.enqueue('d', { lifo: true });
    await q.enqueue('e');
    expect(await drainOrder(q)).toEqual(['d', 'c', 'a', 'b', 'e']);
    await q.close();
  });

  it('stays within its priority: a higher priority still goes first, a lower one still after', async () => {
    const q = await open<string>();
    const jobs: [string, EnqueueOptions][] = [
      ['p0', {}],
      ['p5', { priority: 5 }],
      ['p1-lifo', { priority: 1, lifo: true }],
      ['p5-lifo', { priority: 5, lifo: true }],
      ['p0-lifo', { lifo: true }],
      ['p6', { priority: 6 }],
      ['neg-lifo', { priority: -2_097_152, lifo: true }],
      ['top-lifo', { priority: 2_097_152, lifo: true }],
      ['top', { priority: 2_097_152 }],
    ];
    for (const [payload, options] of jobs) await q.enqueue(payload, options);
    expect(await drainOrder(q)).toEqual(['top-lifo', 'top', 'p6', 'p5-lifo', 'p5', 'p1-lifo', 'p0-lifo', 'p0', 'neg-lifo']);
    await q.close();
  });

  it('works through enqueueMany and a keyed admission', async () => {
    const q = await open<string>();
    await q.enqueueMany([{ payload: 'm1' }, { payload: 'm2', lifo: true }, { payload: 'm3', lifo: true, name: 'x' }]);
    await q.enqueue('k1', { dedupId: 'k', lifo: true });
    expect(await drainOrder(q)).toEqual(['k1', 'm3', 'm2', 'm1']);
    await q.close();
  });

  it('is refused with a time or in a lane, before anything is written', async () => {
    const q = await open<string>();
    await expect(q.enqueue('x', { lifo: true, delayMs: 100 })).rejects.toThrow(InvalidArgumentError);
    await expect(q.enqueueMany([{ payload: 'x', lifo: true, runAt: Date.now() + 1000 }])).rejects.toThrow(/lifo/);
    await expect(q.enqueueInLane('t', 'x', { lifo: true } as never)).rejects.toThrow(UnknownOptionError);
    await expect(q.enqueue('x', { lifo: 'yes' as never })).rejects.toThrow(/lifo: must be a boolean/);
    expect(await q.connection.command('KEYS', `emq:{${q.name}}:*`)).toEqual([]);
    await q.close();
  });
});

describe('timestamp', () => {
  it('keeps the created time the app gives and reads it back', async () => {
    const q = await open<string>();
    const created = new Date('2024-05-01T12:00:00Z');
    const { id } = await q.enqueue('imported', { timestamp: created });
    expect((await q.getJob(id))?.timestamp).toBe(created.getTime());
    const lane = await q.enqueueInLane('t', 'lane', { timestamp: 1_700_000_000_000 });
    expect((await q.getJob(lane.id))?.timestamp).toBe(1_700_000_000_000);
    const [many] = await q.enqueueMany([{ payload: 'm', timestamp: 42 }]);
    expect((await q.getJob(many?.id ?? ''))?.timestamp).toBe(42);
    const plain = await q.enqueue('plain');
    expect((await q.getJob(plain.id))?.timestamp).toBeUndefined();
    await expect(q.enqueue('x', { timestamp: -1 })).rejects.toThrow(/timestamp/);
    await q.close();
  });
});
