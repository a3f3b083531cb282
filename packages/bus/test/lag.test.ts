/**
 * `lag()` answers the entries a group has not been delivered yet, also when the server's own
 * counters (`XINFO GROUPS` entries-read and lag) are missing or wrong: after a trim past the
 * group's position, an XDEL ahead of it, a group opened at `new` on a stream that has entries, or a
 * reset into the middle of the stream.
 */
import { type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupConsumer, type Stream } from '../src/index.js';
import { xaddId } from '../src/wire.js';
import { connect, until } from './helpers.js';

let conn: Connection;
const consumers: GroupConsumer[] = [];

beforeAll(async () => {
  conn = await connect();
});
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await conn.close();
});

async function fresh(): Promise<Stream> {
  return (await Bus.open({ connection: conn })).stream(uniqueName('lag'));
}

const records = (from: number, n: number): { n: string }[] => Array.from({ length: n }, (_, i) => ({ n: String(from + i) }));

/** Runs a consumer of `g` until it has handled `count` entries, then closes it (its acks settled). */
async function consumeAll(stream: Stream, count: number): Promise<string[]> {
  const seen: string[] = [];
  const consumer = await stream.consume('g', (e) => void seen.push(e.payload.n ?? ''), { start: 'head', consumer: 'c1', beatMs: 50 });
  consumers.push(consumer);
  await until(() => seen.length >= count);
  await consumer.close();
  return seen;
}

async function undelivered(stream: Stream, group = 'g'): Promise<number | null | undefined> {
  return (await stream.lag(group))[0]?.undelivered;
}

describe('lag() when the server miscounts', () => {
  it('after a trim past the group: counts what is left, then reaches 0 when the rest is consumed', async () => {
    const stream = await fresh();
    await stream.appendBatch(records(1, 3));
    expect(await consumeAll(stream, 3)).toEqual(['1', '2', '3']);
    await stream.appendBatch(records(4, 4));
    // Keeps 6 and 7: 4 and 5 were never delivered and are gone.
    expect(await stream.trim({ maxlen: 2, approx: false })).toBe(5);
    // Redis 7.0 still counts the two trimmed entries as waiting (lag 4).
    expect(await undelivered(stream)).toBe(2);

    expect(await consumeAll(stream, 2)).toEqual(['6', '7']);
    await stream.appendBatch(records(8, 3));
    // The group sits inside the stream now; the server's entries-read is 2 short for good (lag 5).
    expect(await undelivered(stream)).toBe(3);

    expect(await consumeAll(stream, 3)).toEqual(['8', '9', '10']);
    // Redis 7.0 answers lag 2 here, and goes on answering it.
    const [lag] = await stream.lag('g');
    expect(lag).toMatchObject({ undelivered: 0, pending: 0 });
  });

  it('across an entry deleted ahead of the group', async () => {
    const stream = await fresh();
    await stream.appendBatch(records(1, 2));
    expect(await consumeAll(stream, 2)).toEqual(['1', '2']);
    const ids = await stream.appendBatch(records(3, 4));
    expect(await conn.command('XDEL', stream.key, xaddId(ids[1] as EvtId))).toBe(1);
    // Redis answers no lag (nil) from here until the group is past the deleted entry.
    expect(await undelivered(stream)).toBe(3);
    expect(await consumeAll(stream, 3)).toEqual(['3', '5', '6']);
    expect(await undelivered(stream)).toBe(0);
  });

  it('for a group opened at new on a stream that has entries', async () => {
    const stream = await fresh();
    await stream.appendBatch(records(1, 5));
    await stream.openGroup('g', 'new');
    expect(await undelivered(stream)).toBe(0);
    await stream.appendBatch(records(6, 4));
    // Redis answers no lag (nil) until the group reaches the newest entry.
    expect(await undelivered(stream)).toBe(4);
    expect(await consumeAll(stream, 4)).toEqual(['6', '7', '8', '9']);
    expect(await undelivered(stream)).toBe(0);
  });

  it('after a reset into the middle of the stream', async () => {
    const stream = await fresh();
    const ids = await stream.appendBatch(records(1, 6));
    await stream.openGroup('g', 'new');
    await stream.resetGroup('g', { after: ids[2] as EvtId });
    // XGROUP SETID to an entry in the middle leaves Redis no lag (nil) to answer.
    expect(await undelivered(stream)).toBe(3);
    expect(await consumeAll(stream, 3)).toEqual(['4', '5', '6']);
    expect(await undelivered(stream)).toBe(0);
  });
});
