import { onHook, type Connection, type TelemetryHookMap } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '../src/index.js';
import { connect, purge, until } from './helpers.js';

let conn: Connection;
beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});

describe('emq.stream.* hooks', () => {
  it('fire append, consume, ack and dead_letter with the stream, group, ids and counts', async () => {
    const queue = uniqueName('hooks');
    const bus = await Bus.open(queue, { connection: conn });
    const stream = bus.stream('audit');
    const appends: TelemetryHookMap['emq.stream.append'][] = [];
    const consumes: TelemetryHookMap['emq.stream.consume'][] = [];
    const acks: TelemetryHookMap['emq.stream.ack'][] = [];
    const dead: TelemetryHookMap['emq.stream.dead_letter'][] = [];
    const mine = (e: { queue: string }): boolean => e.queue === queue;
    const offs = [
      onHook('emq.stream.append', (e) => mine(e) && appends.push(e)),
      onHook('emq.stream.consume', (e) => mine(e) && consumes.push(e)),
      onHook('emq.stream.ack', (e) => mine(e) && acks.push(e)),
      onHook('emq.stream.dead_letter', (e) => mine(e) && dead.push(e)),
    ];
    try {
      const one = await stream.append({ n: '1' });
      const [two, three] = await stream.appendBatch([{ n: '2' }, { n: 'x' }]);
      expect(appends.map((e) => [e.stream, e.ids, e.count])).toEqual([
        ['audit', [one], 1],
        ['audit', [two, three], 2],
      ]);
      const consumer = await stream.consume('indexer', ({ payload }) => (payload.n === 'x' ? { deadLetter: 'bad' } : 'ack'), { start: 'head', consumer: 'c1', beatMs: 50 });
      await until(() => acks.reduce((n, e) => n + e.acked, 0) === 2 && dead.length === 1);
      await consumer.close();
      expect(consumes.flatMap((e) => e.ids)).toEqual([one, two, three]);
      expect(consumes.every((e) => e.group === 'indexer' && e.consumer === 'c1' && e.durationMs >= 0)).toBe(true);
      expect(dead).toEqual([{ queue, stream: 'audit', group: 'indexer', count: 1 }]);
    } finally {
      for (const off of offs) off();
      await purge(conn, queue);
    }
  });
});
