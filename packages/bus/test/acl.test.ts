import { busAclRules, Connection, mintId, PermissionError } from '@echo/protocol/bus';
import { startRedis, waitFor, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupConsumer } from '../src/index.js';

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = server.client();
  await admin.call('ACL', 'SETUSER', 'audit', 'on', '>audit-pw', ...busAclRules(['orders']));
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

function connectAs(): Promise<Connection> {
  return Connection.connect({ host: server.host, port: server.port, username: 'audit', password: 'audit-pw' });
}

describe('least-privilege ACL for the bus pillar', () => {
  it('runs streams, groups, dead letters, redrive, lag, tail, trim, the archive and events as a user limited to its queue', async () => {
    const conn = await connectAs();
    await conn.command('SCRIPT', 'FLUSH').catch(() => undefined);
    const bus = await Bus.open('orders', { connection: conn });
    const audit = bus.stream('audit');
    const events = await bus.events();

    const ids = await audit.appendBatch(Array.from({ length: 20 }, (_, i) => ({ n: String(i) })));
    await audit.append({ n: 'poison' });
    expect(await audit.read({ count: 5 })).toHaveLength(5);
    expect(await audit.readSince(Date.now() - 60_000)).toHaveLength(21);

    const consumers: GroupConsumer[] = [];
    const handled = new Set<string>();
    consumers.push(await audit.consume('indexer', (e) => {
      if (e.payload.n === 'poison') throw new Error('bad record');
      if (e.payload.n === '3' && e.attempts === 1) return { retryInMs: 10 };
      handled.add(e.payload.n ?? '');
      return 'ack';
    }, { start: 'head', consumer: 'c1', beatMs: 20, minIdleMs: 20, maxDeliveries: 2 }));
    let batches = 0;
    consumers.push(await audit.consumeBatch('bulk', (entries) => {
      batches++;
      return entries.map(() => 'ack' as const);
    }, { start: { at: Date.now() - 60_000 }, consumer: 'b1', beatMs: 20 }));

    // The batch group reads on its own beat: waited for too, not assumed done when the other is.
    await waitFor(async () => handled.size === 20 && batches > 0 && (await audit.deadLetters()).length === 1, { timeoutMs: 30_000 });
    const lag = await audit.lag();
    expect(lag.map((g) => g.group).sort()).toEqual(['bulk', 'indexer']);
    expect((await audit.redrive({ all: true })).left).toEqual([]);

    const tail = audit.tail({ from: { after: ids[19]! } });
    const first = await tail[Symbol.asyncIterator]().next();
    expect(first.value?.[1]).toMatchObject({ n: 'poison' });
    await tail.close();

    await audit.putArchived(ids[0]!);
    expect(await audit.getArchived()).toBe(ids[0]);
    expect(await audit.clearArchived()).toBe(true);
    expect(await audit.trim({ maxlen: 1, approx: false })).toBeGreaterThan(0);

    // The stream state beside the log: the dedup window, an ordered group and its controls.
    expect((await audit.append({ n: 'once' }, { msgId: 'm' })).duplicate).toBe(false);
    expect((await audit.appendBatch([{ n: 'once' }], { msgIds: ['m'] }))[0]?.duplicate).toBe(true);
    const ordered: string[] = [];
    consumers.push(await audit.consume('ordered', (e) => void ordered.push(e.payload.n ?? ''), { start: 'head', consumer: 'o1', orderBy: 'n', beatMs: 20 }));
    await waitFor(() => ordered.length >= 2, { timeoutMs: 30_000 });
    await audit.pauseGroup('ordered');
    await audit.resetGroup('ordered', 'new');
    expect(await audit.resumeGroup('ordered')).toBe(true);
    expect(await audit.deleteGroup('ordered')).toBe(true);

    // Listened for only now: a timer started with the test would run out on a loaded machine
    // before the publish is reached (and reject unhandled when an earlier step fails).
    const heard = events.next((e) => e.event === 'completed');
    await bus.publish('completed', mintId('JOB'));
    expect((await heard).event).toBe('completed');

    await Promise.all(consumers.map((c) => c.close()));
    await events.close();
    await bus.close();
    await conn.close();
  });

  it('gets a typed PermissionError on another queue, and nothing is written', async () => {
    const conn = await connectAs();
    const other = (await Bus.open('payments', { connection: conn })).stream('audit');
    await expect(other.append({ n: '1' })).rejects.toBeInstanceOf(PermissionError);
    expect(await admin.exists('emq:{payments}:stream:audit')).toBe(0);
    await conn.close();
  });
});
