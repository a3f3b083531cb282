import { IdMinter, InvalidArgumentError, ServerError, idUnixMs, type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus, RetentionDriver, type RetentionTarget, type Stream } from '../src/index.js';
import { connect, purge, until } from './helpers.js';

let conn: Connection;
let queue: string;

beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});
afterEach(async () => {
  await purge(conn, queue);
});

const DT = Date.parse('2031-05-06T07:08:09.010Z');

/** Appends one record minted at each instant, several per millisecond where instants repeat. */
async function mintedAt(stream: Stream, instants: readonly number[], node = 1023): Promise<EvtId[]> {
  const clock = [...instants];
  const minter = new IdMinter({ node, now: () => clock.shift() ?? Number.NaN });
  const ids: EvtId[] = [];
  for (const at of instants) ids.push(await stream.appendId(minter.mint('EVT'), { at: String(at) }));
  return ids;
}

async function freshStream(scenario: string): Promise<Stream> {
  queue = `${uniqueName('bus')}.${scenario}`;
  return (await Bus.open(queue, { connection: conn })).stream('log');
}

describe('conformance 77 stream_retention', () => {
  it('MAXLEN (=): keeps the newest entries and answers the exact count removed', async () => {
    const stream = await freshStream('stream_retention');
    const ids = await stream.appendBatch(Array.from({ length: 10 }, (_, i) => ({ i: String(i) })));
    expect(await stream.trim({ maxlen: 4, approx: false })).toBe(6);
    expect((await stream.read()).map(([id]) => id)).toEqual(ids.slice(6));
    expect(await stream.trim({ maxlen: 4, approx: false })).toBe(0);
    expect(await stream.trim({ maxlen: 0, approx: false })).toBe(4);
    expect(await stream.read()).toEqual([]);
  });

  it('MINID (=): an entry at dt−1ms is trimmed, one at dt survives, and the count is exact', async () => {
    const stream = await freshStream('stream_retention');
    const ids = await mintedAt(stream, [DT - 5, DT - 1, DT - 1, DT, DT, DT + 1]);
    expect(await stream.trim({ minid: new Date(DT), approx: false })).toBe(3);
    const kept = (await stream.read()).map(([id]) => id);
    expect(kept).toEqual(ids.slice(3));
    expect(kept.map(idUnixMs)).toEqual([DT, DT, DT + 1]);
    expect(await stream.trim({ minid: DT, approx: false })).toBe(0);
  });

  it('~ (the default) may trim less than asked but never inside the window', async () => {
    const stream = await freshStream('stream_retention');
    const ids = await mintedAt(stream, [DT - 2, DT - 1, DT, DT + 1]);
    const removed = await stream.trim({ minid: DT });
    expect(removed).toBeGreaterThanOrEqual(0);
    expect(removed).toBeLessThanOrEqual(2);
    const kept = (await stream.read()).map(([id]) => id);
    expect(kept.slice(-2)).toEqual(ids.slice(2));
    expect(await stream.trim({ maxlen: 1 })).toBeLessThanOrEqual(kept.length - 1);
  });

  it('passes WRONGTYPE through unchanged and sends nothing for a malformed window', async () => {
    const stream = await freshStream('stream_retention');
    await conn.command('SET', stream.key, 'x');
    await expect(stream.trim({ maxlen: 1 })).rejects.toThrow(ServerError);
    const before = conn.stats().commands;
    await expect(stream.trim({ maxlen: -1 })).rejects.toThrow(InvalidArgumentError);
    expect(conn.stats().commands).toBe(before);
  });
});

describe('RetentionDriver', () => {
  it('resolves {ago} against its injected clock on every tick', async () => {
    const stream = await freshStream('driver');
    const ids = await mintedAt(stream, [DT - 1, DT, DT + 10, DT + 11]);
    let now = DT + 1000;
    const driver = new RetentionDriver(conn, [{ queue, name: 'log', window: { minid: { ago: 1000 }, approx: false } }], { now: () => now });
    expect(await driver.tick()).toEqual([{ target: driver.targets[0], ok: true, removed: 1 }]);
    now = DT + 1011;
    expect((await driver.tick())[0]).toMatchObject({ ok: true, removed: 2 });
    expect((await stream.read()).map(([id]) => id)).toEqual([ids[3]]);
  });

  it('logs and skips a failed trim; the other targets are still trimmed', async () => {
    const stream = await freshStream('driver');
    await stream.appendBatch([{ a: '1' }, { a: '2' }, { a: '3' }]);
    await conn.command('SET', `${stream.key.slice(0, -'log'.length)}broken`, 'not a stream');
    const logged: [unknown, RetentionTarget][] = [];
    const bus = await Bus.open(queue, { connection: conn });
    const driver = bus.retention(
      [
        { name: 'broken', window: { maxlen: 0, approx: false } },
        { name: 'log', window: { maxlen: 1, approx: false } },
      ],
      { onError: (error, target) => logged.push([error, target]) },
    );
    const outcomes = await driver.tick();
    expect(outcomes.map((o) => o.ok)).toEqual([false, true]);
    expect(outcomes[1]).toMatchObject({ removed: 2 });
    expect(logged).toHaveLength(1);
    expect(logged[0]?.[0]).toBeInstanceOf(ServerError);
    expect(logged[0]?.[1].name).toBe('broken');
  });

  it('ticks on its own once started, and stops', async () => {
    const stream = await freshStream('driver');
    await stream.appendBatch([{ a: '1' }, { a: '2' }, { a: '3' }]);
    const driver = new RetentionDriver(conn, [{ queue, name: 'log', window: { maxlen: 1, approx: false } }], { intervalMs: 10 }).start();
    expect(driver.running).toBe(true);
    await until(async () => (await stream.read()).length === 1);
    await driver.stop();
    expect(driver.running).toBe(false);
    await stream.appendBatch([{ a: '4' }, { a: '5' }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(await stream.read()).toHaveLength(3);
  });

  it('does nothing with an empty policy, and refuses a malformed window as a configuration error', async () => {
    queue = uniqueName('bus');
    const before = conn.stats().commands;
    expect(await new RetentionDriver(conn, []).tick()).toEqual([]);
    expect(conn.stats().commands).toBe(before);
    for (const window of [{ maxlen: -1 }, { minid: { ago: -1 } }, { minid: { ago: 1.5 } }, { minid: null }, { minid: { ago: 5 }, approx: 1 }, {}]) {
      expect(() => new RetentionDriver(conn, [{ queue, name: 'log', window: window as never }]), JSON.stringify(window)).toThrow(InvalidArgumentError);
    }
    expect(() => new RetentionDriver(conn, [{ queue, name: 'a:b', window: { maxlen: 1 } }])).toThrow(/stream name/);
    expect(() => new RetentionDriver(conn, [], { intervalMs: 0 })).toThrow(InvalidArgumentError);
  });

  it('reports a clock that resolves to no valid instant as a skipped trim', async () => {
    queue = uniqueName('bus');
    const logged: unknown[] = [];
    const driver = new RetentionDriver(conn, [{ queue, name: 'log', window: { minid: { ago: 10 } } }], {
      now: () => Number.NaN,
      onError: (error) => logged.push(error),
    });
    expect((await driver.tick())[0]).toMatchObject({ ok: false });
    expect(logged[0]).toBeInstanceOf(InvalidArgumentError);
  });
});
