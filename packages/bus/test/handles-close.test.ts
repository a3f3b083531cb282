import { RenamedError, type Connection } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '../src/index.js';
import { connect, purge } from './helpers.js';

let conn: Connection;

beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});

describe('one vocabulary: every handle closes with close() and says so with closed', () => {
  it('bus, events listener, consumer, tail and retention driver: closed goes true on close()', async () => {
    const queue = uniqueName('close');
    const bus = await Bus.open(queue, { connection: conn });
    const stream = bus.stream('log');
    await stream.append({ n: '1' });
    const events = await bus.events();
    const consumer = await stream.consume('g', () => undefined, { start: 'head', consumer: 'c', beatMs: 50 });
    const tail = stream.tail({ blockMs: 50 });
    const retention = bus.retention([{ name: 'log', window: { maxlen: 10 } }]).start();
    const handles = [bus, events, consumer, tail, retention];
    expect(handles.map((h) => h.closed)).toEqual([false, false, false, false, false]);
    for (const h of handles) await h.close();
    expect(handles.map((h) => h.closed)).toEqual([true, true, true, true, true]);
    await purge(conn, queue);
  });

  it("refuses RetentionDriver.stop() with a typed error naming close(), and stops nothing", async () => {
    const queue = uniqueName('close');
    const bus = await Bus.open(queue, { connection: conn });
    const retention = bus.retention([{ name: 'log', window: { maxlen: 10 } }]).start();
    try {
      let refused: unknown;
      try {
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- the refused name is what this test calls
        retention.stop();
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(RenamedError);
      expect((refused as RenamedError).message).toMatch(/RetentionDriver\.stop\(\).*call RetentionDriver\.close\(\)/);
      expect(refused).toMatchObject({ code: 'renamed', called: 'RetentionDriver.stop()', use: 'RetentionDriver.close()' });
      // Refused, not aliased: the driver still ticks.
      expect([retention.running, retention.closed]).toEqual([true, false]);
    } finally {
      await retention.close();
      await bus.close();
    }
  });
});
