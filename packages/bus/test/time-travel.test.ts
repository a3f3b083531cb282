import { IdMinter, InvalidArgumentError, idUnixMs, type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type Stream } from '../src/index.js';
import { connect, purge } from './helpers.js';

let conn: Connection;
let queue: string;
let stream: Stream;
let all: EvtId[];

const T0 = Date.parse('2026-02-03T04:05:06.007Z');
const T1 = T0 + 250;
// Below, at the edges (several records in the same millisecond), inside, and above the window.
const INSTANTS = [T0 - 1000, T0 - 1, T0 - 1, T0, T0, T0, T0 + 1, T0 + 100, T1 - 1, T1, T1, T1, T1 + 1, T1 + 1, T1 + 1000];

beforeAll(async () => {
  conn = await connect();
  queue = `${uniqueName('bus')}.stream_time_travel`;
  stream = (await Bus.open(queue, { connection: conn })).stream('log');
  const clock = [...INSTANTS];
  // Node 1023 puts the XADD tail near 0x3FFFFF, which is what makes the inclusive ceiling matter.
  const minter = new IdMinter({ node: 1023, now: () => clock.shift() ?? Number.NaN });
  all = [];
  for (const at of INSTANTS) all.push(await stream.appendId(minter.mint('EVT'), { at: String(at) }));
});
afterAll(async () => {
  await purge(conn, queue);
  await conn.close();
});

function minted(from: number, to = Number.POSITIVE_INFINITY): EvtId[] {
  return all.filter((id) => idUnixMs(id) >= from && idUnixMs(id) <= to);
}

describe('conformance 79 stream_time_travel', () => {
  it('readWindow equals the full read filtered by mint instant, inclusive at both ends to the ms', async () => {
    const full = await stream.read();
    expect(full.map(([id]) => id)).toEqual(all);
    const window = await stream.readWindow(new Date(T0), new Date(T1));
    expect(window).toEqual(full.filter(([id]) => idUnixMs(id) >= T0 && idUnixMs(id) <= T1));
    const instants = window.map(([, f]) => Number(f.at));
    expect(instants).toContain(T0);
    expect(instants).toContain(T1);
    expect(instants).not.toContain(T0 - 1);
    expect(instants).not.toContain(T1 + 1);
    expect(window).toHaveLength(9);
  });

  it('readSince(t0) agrees with the full read from t0', async () => {
    const full = await stream.read();
    expect(await stream.readSince(T0)).toEqual(full.filter(([id]) => idUnixMs(id) >= T0));
    expect((await stream.readSince(T0 - 1)).map(([id]) => id)).toEqual(minted(T0 - 1));
  });

  it('holds for every window edge around the records', async () => {
    const edges = [T0 - 1000, T0 - 1, T0, T0 + 1, T1 - 1, T1, T1 + 1];
    for (const from of edges) {
      for (const to of edges.filter((e) => e >= from)) {
        expect((await stream.readWindow(from, to)).map(([id]) => id), `${from}..${to}`).toEqual(minted(from, to));
      }
    }
    expect((await stream.readWindow(T0, T0)).map(([id]) => id)).toEqual(minted(T0, T0));
  });

  it('honours count, and refuses t1 < t0 on the host', async () => {
    expect((await stream.readWindow(T0, T1, { count: 2 })).map(([id]) => id)).toEqual(minted(T0, T1).slice(0, 2));
    expect((await stream.readSince(T0, { count: 1 })).map(([id]) => id)).toEqual(minted(T0).slice(0, 1));
    const before = conn.stats().commands;
    await expect(stream.readWindow(T1, T0)).rejects.toThrow(InvalidArgumentError);
    await expect(stream.readWindow(new Date('x'), T0)).rejects.toThrow(InvalidArgumentError);
    expect(conn.stats().commands).toBe(before);
  });
});
