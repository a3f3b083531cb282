import { IdMinter, ServerError, execute, mintId, queueKeys, transitions, type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchAppendError, Bus, type StreamFields } from '../src/index.js';
import { xaddId } from '../src/wire.js';
import { connect, purge } from './helpers.js';

/*
 * appendBatch sends one `stream_append_batch` script per chunk of records [TS] where the spec has it
 * pipeline one XADD per record (bus.md §2.2): these tests hold that the stream cannot tell the two
 * apart, and that refusals are still reported record by record.
 */

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

async function openBus(minter?: IdMinter): Promise<Bus> {
  queue = uniqueName('bus-batch');
  return Bus.open(queue, minter === undefined ? { connection: conn } : { connection: conn, minter });
}

type RawEntry = [string, string[]];

describe('appendBatch as one script per chunk', () => {
  it('writes exactly the entries of the spec’s pipelined XADDs, and a stream another runtime pipelined reads back the same', async () => {
    const bus = await openBus();
    const ours = bus.stream('ours');
    const records: StreamFields[] = [{ a: '1', b: 'x' }, {}, { 'ü': 'ß', empty: '' }, { a: '4' }];
    const ids = await ours.appendBatch(records);
    const written = (await conn.command('XRANGE', ours.key, '-', '+')) as RawEntry[];
    expect(written).toEqual(ids.map((id, i) => [xaddId(id), ['id', id, ...Object.entries(records[i] as StreamFields).flat()]]));

    // The same records written the spec's way, as another runtime does: XADD <xid> id <EVT id> … per record, pipelined.
    const theirs = bus.stream('theirs');
    await conn.pipeline(written.map(([xid, pairs]) => ['XADD', theirs.key, xid, ...pairs] as [string, ...string[]]));
    expect(await conn.command('XRANGE', theirs.key, '-', '+')).toEqual(written);
    expect(await theirs.read()).toEqual(await ours.read());
  });

  it('splits a large batch into scripts of 1,000 in one pipeline, and reports refusals at their place in the batch', async () => {
    const t = Date.UTC(2030, 0, 1);
    let mints = 0;
    // Records 0..1499 mint at t, the rest at t + 2; another writer already holds t + 1.
    const minter = new IdMinter({ node: 7, now: () => (mints++ < 1500 ? t : t + 2) });
    const bus = await openBus(minter);
    const stream = bus.stream('big');
    const blocker = new IdMinter({ node: 9, now: () => t + 1 }).mint('EVT');
    await stream.appendId(blocker, { who: 'blocker' });
    await stream.appendBatch([{ warm: 'up' }]).catch(() => undefined); // loads the script; refused below the blocker
    mints = 0;

    const before = conn.stats();
    const error: unknown = await stream.appendBatch(Array.from({ length: 2500 }, (_, i) => ({ i: String(i) }))).catch((e: unknown) => e);
    const after = conn.stats();
    expect([after.evalshaCalls - before.evalshaCalls, after.pipelines - before.pipelines]).toEqual([3, 1]);
    expect(error).toBeInstanceOf(BatchAppendError);
    const results = (error as BatchAppendError).results;
    expect(results).toHaveLength(2500);
    expect(results.findIndex((r) => r.ok)).toBe(1500);
    expect(results.slice(0, 1500).every((r) => !r.ok && r.error.message.includes('equal or smaller'))).toBe(true);
    expect(results.slice(1500).every((r) => r.ok)).toBe(true);
    const landed = await stream.read();
    expect(landed).toHaveLength(1001);
    expect(landed.map(([id]) => id)).toEqual([blocker, ...results.slice(1500).map((r) => r.id)]);
    expect(landed.slice(1).map(([, f]) => f.i)).toEqual(Array.from({ length: 1000 }, (_, i) => String(1500 + i)));
  });

  it('a batch the server refuses whole (a key of another type) reports every record, and writes nothing', async () => {
    const bus = await openBus();
    const stream = bus.stream('typed');
    await conn.command('SET', stream.key, 'not a stream');
    const error: unknown = await stream.appendBatch([{ n: '1' }, { n: '2' }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchAppendError);
    const results = (error as BatchAppendError).results;
    expect(results.map((r) => (r.ok ? 'ok' : r.error.message.slice(0, 9)))).toEqual(['WRONGTYPE', 'WRONGTYPE']);
    expect(await conn.command('GET', stream.key)).toBe('not a stream');
  });

  it('a record too wide for a script sends its batch the spec’s pipelined way, in order', async () => {
    const bus = await openBus();
    const stream = bus.stream('wide');
    const wide: Record<string, string> = {};
    for (let f = 0; f < 4000; f++) wide[`f${f}`] = 'v';
    const fit: Record<string, string> = {};
    for (let f = 0; f < 3400; f++) fit[`f${f}`] = 'v';
    await stream.appendBatch([{ warm: 'up' }]);

    let before = conn.stats();
    const [a, b] = await stream.appendBatch([fit, { n: '1' }]);
    let after = conn.stats();
    expect([after.evalshaCalls - before.evalshaCalls, after.commands - before.commands]).toEqual([1, 1]);

    before = conn.stats();
    const [c, d, e] = await stream.appendBatch([{ n: '2' }, wide, { n: '3' }]);
    after = conn.stats();
    expect([after.evalshaCalls - before.evalshaCalls, after.commands - before.commands]).toEqual([0, 3]);

    const read = await stream.read();
    expect(read.map(([id]) => id)).toEqual([expect.any(String), a, b, c, d, e]);
    expect(Object.keys(read[1]?.[1] ?? {})).toHaveLength(3400);
    expect(Object.keys(read[4]?.[1] ?? {})).toHaveLength(4000);
  });

  it('the script refuses a malformed call whole before writing anything', async () => {
    await openBus();
    const id = mintId('EVT') as EvtId;
    const bad = transitions.streamAppendBatch({ queue, stream: 'bad', records: [xaddId(id), id, 4, 'a', '1'], count: 1, extra: [] });
    await expect(execute(conn, bad)).rejects.toThrow(ServerError);
    const odd = transitions.streamAppendBatch({ queue, stream: 'bad', records: [xaddId(id), id, 2, 'a', '1', '1-1', id, 3, 'a', '1', 'b'], count: 2, extra: [] });
    await expect(execute(conn, odd)).rejects.toThrow(/malformed batch layout/);
    expect(await conn.command('EXISTS', queueKeys(queue).stream('bad'))).toBe(0);
  });
});
