import { Connection, mintId, slot, type LifecycleEvent } from '@echo/protocol';
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
