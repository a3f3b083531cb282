import { Connection, mintId, queueKeys, slot, type LifecycleEvent } from '@echo/protocol/extend';
import { startCluster, uniqueName, type RedisCluster } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupEntry } from '../src/index.js';
import { until } from './helpers.js';

let cluster: RedisCluster;
let conn: Connection;

beforeAll(async () => {
  cluster = await startCluster({ masters: 3 });
  conn = await Connection.connect({ cluster: cluster.seeds });
}, 60_000);
afterAll(async () => {
  await conn.close();
  await cluster.stop();
});

describe('on a 3-master cluster', () => {
  it('appends, reads, time-travels, trims and consumes a stream on the queue slot', async () => {
    const queue = uniqueName('cl');
    const bus = await Bus.open(queue, { connection: conn });
    const stream = bus.stream('audit');
    // The stream, its watermark and the events channel all hash to the queue's slot.
    expect(slot(stream.key)).toBe(slot(`emq:{${queue}}:pending`));

    const first = await stream.append({ n: '0' });
    const rest = await stream.appendBatch([{ n: '1' }, { n: '2' }]);
    const ids = [first, ...rest];
    expect((await stream.read()).map(([id, f]) => [id, f.n])).toEqual(ids.map((id, i) => [id, String(i)]));
    expect((await stream.readSince(Date.now() - 60_000)).map(([id]) => id)).toEqual(ids);
    await stream.putArchived(first);
    expect(await stream.getArchived()).toBe(first);

    const seen: GroupEntry[] = [];
    const consumer = await stream.consume('g', (e) => void seen.push(e), { start: 'head', consumer: 'c1', beatMs: 50 });
    try {
      await until(() => seen.length === 3);
      expect(seen.map((e) => e.id)).toEqual(ids);
    } finally {
      await consumer.close();
    }
    expect(await stream.trim({ maxlen: 1, approx: false })).toBe(2);
    expect(await stream.clearArchived()).toBe(true);
  });

  it('deduplicates appends by message id on the stream slot, for a stream of a bus without a queue too', async () => {
    for (const bus of [await Bus.open(uniqueName('cl'), { connection: conn }), await Bus.open({ connection: conn })]) {
      const stream = bus.stream(uniqueName('dd'));
      expect(slot(queueKeys(stream.queue).streamPart(stream.name, 'msgids:until'))).toBe(slot(stream.key));
      const first = await stream.append({ n: '1' }, { msgId: 'm' });
      expect(await stream.append({ n: '1' }, { msgId: 'm' })).toEqual({ id: first.id, duplicate: true });
      const batch = await stream.appendBatch([{ n: '2' }, { n: '3' }], { msgIds: ['m', 'k'] });
      expect(batch.map((r) => r.duplicate)).toEqual([true, false]);
      expect(await stream.read()).toHaveLength(2);
    }
  });

  it('consumes in per-key order, pauses, resets and deletes a group on the stream slot', async () => {
    const stream = (await Bus.open({ connection: conn })).stream(uniqueName('ord'));
    expect(slot(queueKeys(stream.queue).streamPart(stream.name, 'order'))).toBe(slot(stream.key));
    expect(slot(queueKeys(stream.queue).streamPart(stream.name, 'paused'))).toBe(slot(stream.key));
    await stream.appendBatch(Array.from({ length: 30 }, (_, i) => ({ k: `k${i % 3}`, seq: String(Math.floor(i / 3)) })));
    const seen = new Map<string, number[]>();
    const options = { start: 'head' as const, orderBy: 'k', concurrency: 3, count: 4, beatMs: 50 };
    const record = (e: GroupEntry): void => {
      const list = seen.get(e.payload.k ?? '') ?? [];
      list.push(Number(e.payload.seq));
      seen.set(e.payload.k ?? '', list);
    };
    const consumers = [await stream.consume('g', record, { ...options, consumer: 'c1' }), await stream.consume('g', record, { ...options, consumer: 'c2' })];
    try {
      await until(() => [...seen.values()].reduce((n, l) => n + l.length, 0) === 30);
      for (const list of seen.values()) expect(list).toEqual(Array.from({ length: 10 }, (_, i) => i));
      await stream.pauseGroup('g');
      expect(await stream.isGroupPaused('g')).toBe(true);
    } finally {
      await Promise.all(consumers.map((c) => c.close()));
    }
    // Reset with no consumer running: a pause takes hold within a beat or two, not at once.
    await stream.resetGroup('g', 'head');
    expect((await stream.lag('g'))[0]?.undelivered).toBe(30);
    expect(await stream.deleteGroup('g')).toBe(true);
    expect(await stream.isGroupPaused('g')).toBe(false);
  });

  it('dead-letters, claims past max deliveries and redrives on the queue slot', async () => {
    const queue = uniqueName('cl');
    const stream = (await Bus.open(queue, { connection: conn })).stream('jobs');
    expect(slot(stream.deadLettersKey)).toBe(slot(stream.key));
    const [crashed, bad] = await stream.appendBatch([{ n: 'crashed' }, { n: 'bad' }]);
    await stream.openGroup('g', 'head');
    // `crashed` was read by a consumer that died: its next claim is past maxDeliveries 1.
    await conn.command('XREADGROUP', 'GROUP', 'g', 'dead-one', 'COUNT', '1', 'STREAMS', stream.key, '>');
    let healthy = false;
    const seen: [string | undefined, number][] = [];
    const consumer = await stream.consume(
      'g',
      (e) => {
        seen.push([e.payload.n, e.attempts]);
        return healthy ? 'ack' : { deadLetter: 'not yet' };
      },
      { start: 'head', consumer: 'c1', beatMs: 50, minIdleMs: 20, maxDeliveries: 1 },
    );
    try {
      await until(async () => (await stream.deadLetters()).length === 2);
      expect(new Map((await stream.deadLetters()).map((d) => [d.id, d.reason]))).toEqual(
        new Map([
          [crashed, 'max deliveries exceeded'],
          [bad, 'not yet'],
        ]),
      );
      healthy = true;
      expect((await stream.redrive({ all: true })).redriven).toBe(2);
      await until(() => seen.length === 3);
      expect(seen.slice(1).sort()).toEqual([
        ['bad', 1],
        ['crashed', 1],
      ]);
      const [lag] = await stream.lag('g');
      expect(lag?.undelivered).toBe(0);
    } finally {
      await consumer.close();
    }
    expect(await stream.drop()).toBe(true);
  });

  it('delivers lifecycle events through the cluster subscriber', async () => {
    const queue = uniqueName('cl');
    const bus = await Bus.open(queue, { connection: conn });
    const events = await bus.events();
    try {
      const got: LifecycleEvent[] = [];
      events.on((e) => got.push(e));
      const job = mintId('JOB');
      await bus.publish('completed', job);
      await until(() => got.length === 1);
      expect(got[0]).toEqual({ event: 'completed', job, fields: {} });
    } finally {
      await events.close();
    }
  });
});
