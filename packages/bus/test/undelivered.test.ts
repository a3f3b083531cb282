/**
 * The bound on `lag()`'s count: with a limit of 3, a group within 3 entries of either end of the
 * stream is counted exactly; farther from both, the server's own count stands only where the
 * counts around the group's position allow it.
 */
import { reads, type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type Stream } from '../src/index.js';
import { xaddId } from '../src/wire.js';
import { countUndelivered } from '../src/groups/undelivered.js';
import { connect } from './helpers.js';

let conn: Connection;

beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});

const LIMIT = 3;

async function fresh(n: number): Promise<{ stream: Stream; ids: EvtId[] }> {
  const stream = (await Bus.open({ connection: conn })).stream(uniqueName('undelivered'));
  const ids = await stream.appendBatch(Array.from({ length: n }, (_, i) => ({ n: String(i + 1) })));
  return { stream, ids };
}

/** `countUndelivered` for every group of the stream, by name, with the test's limit. */
async function count(stream: Stream): Promise<Record<string, number | null>> {
  const groups = await reads.sendRead(conn, reads.xinfoGroups({ key: stream.key }));
  const info = await reads.sendRead(conn, reads.xinfoStream({ key: stream.key }));
  const answers = await countUndelivered(conn, stream.key, info, groups, LIMIT);
  return Object.fromEntries(groups.map((g, i) => [g.name, answers[i] ?? null]));
}

describe('countUndelivered', () => {
  it('is exact within the limit of either end, from the ends alone past them', async () => {
    const { stream, ids } = await fresh(10);
    const after = async (group: string, index: number): Promise<void> => {
      await stream.openGroup(group, 'new');
      await stream.resetGroup(group, { after: ids[index] as EvtId });
    };
    await stream.openGroup('head', 'head');
    await stream.openGroup('top', 'new');
    await after('near-top', 7);
    await after('near-head', 1);
    await after('middle', 4);
    expect(await count(stream)).toEqual({ head: 10, top: 0, 'near-top': 2, 'near-head': 8, middle: null });
  });

  it('farther than the limit from both ends, takes the server count only where the counts allow it', async () => {
    const { stream } = await fresh(10);
    await stream.openGroup('g', 'head');
    await conn.command('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '5', 'STREAMS', stream.key, '>');
    // The server counts 5 after the group: it can be, with more than 3 on each side.
    expect(await count(stream)).toEqual({ g: 5 });

    // 3 read, 17 more appended, then a trim to the newest 12 takes 5 the group never had.
    const { stream: trimmed } = await fresh(3);
    await trimmed.openGroup('g', 'head');
    await conn.command('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '3', 'STREAMS', trimmed.key, '>');
    await trimmed.appendBatch(Array.from({ length: 17 }, (_, i) => ({ n: String(i + 4) })));
    expect(await trimmed.trim({ maxlen: 12, approx: false })).toBe(8);
    await conn.command('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '4', 'STREAMS', trimmed.key, '>');
    // 8 follow and 4 precede, but the server says 13: more than 12 - 4 can be, so no answer.
    expect(await count(trimmed)).toEqual({ g: null });
    // Within the limit of the newest entry it is counted again.
    await conn.command('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '6', 'STREAMS', trimmed.key, '>');
    expect(await count(trimmed)).toEqual({ g: 2 });
  });

  it('counts past an entry deleted in the range it reads', async () => {
    const { stream, ids } = await fresh(6);
    await stream.openGroup('g', 'head');
    await stream.resetGroup('g', { after: ids[0] as EvtId });
    expect(await conn.command('XDEL', stream.key, xaddId(ids[4] as EvtId), xaddId(ids[1] as EvtId))).toBe(2);
    // 3, 4 and 6 follow the group.
    expect(await count(stream)).toEqual({ g: 3 });
  });
});
