import { uniqueName, useRedis, type RedisTarget } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, parseAutoclaim, parseStreamEntries, parseStreamRead, reads } from './support.js';

let target: RedisTarget;
let conn: Connection;
const clients: Redis[] = [];

beforeAll(async () => {
  target = await useRedis();
  conn = await Connection.connect(target.url);
});
afterAll(async () => {
  await conn.close();
  for (const c of clients) c.disconnect();
});

/** A raw command as each client shape would hand the reply to a parser. */
type Send = (name: string, ...args: string[]) => Promise<unknown>;

function driver(options: Parameters<RedisTarget['client']>[0]): Send {
  const client = target.client(options) as unknown as Redis;
  clients.push(client);
  return (name, ...args) => client.call(name, ...args);
}

const shapes: [string, () => Send][] = [
  ['RESP2', () => driver({ protocol: 2 })],
  ['RESP3 (default mapping)', () => driver({ protocol: 3 })],
  ['RESP3 (resp3 mapping)', () => driver({ protocol: 3, replyMapping: 'resp3' })],
  ['the Connection', () => (name, ...args) => conn.command(name, ...args)],
];

describe.each(shapes)('the stream-entry parser against a live server over %s', (_shape, make) => {
  let send: Send;
  let key: string;
  let ids: string[];

  beforeAll(async () => {
    send = make();
    key = uniqueName('stream');
    ids = [];
    for (const v of ['a', 'b', 'c']) ids.push(String(await send('XADD', key, '*', 'f', v, 'n', '1')));
  });

  it('XRANGE', async () => {
    expect(parseStreamEntries(await send('XRANGE', key, '-', '+'))).toEqual(ids.map((id, i) => ({ id, fields: ['f', 'abc'[i], 'n', '1'] })));
  });

  it('XREVRANGE', async () => {
    expect(parseStreamEntries(await send('XREVRANGE', key, '+', '-', 'COUNT', '1'), 'XREVRANGE')).toEqual([{ id: ids[2], fields: ['f', 'c', 'n', '1'] }]);
  });

  it('XREAD of two streams, and a timed-out BLOCK', async () => {
    const other = uniqueName('stream');
    const otherId = String(await send('XADD', other, '*', 'x', 'y'));
    expect(parseStreamRead(await send('XREAD', 'COUNT', '1', 'STREAMS', key, other, '0-0', '0-0'))).toEqual([
      { key, entries: [{ id: ids[0], fields: ['f', 'a', 'n', '1'] }] },
      { key: other, entries: [{ id: otherId, fields: ['x', 'y'] }] },
    ]);
    expect(parseStreamRead(await send('XREAD', 'BLOCK', '1', 'STREAMS', key, '$'))).toEqual([]);
  });

  it('XREADGROUP, then XAUTOCLAIM with a deleted pending entry', async () => {
    const group = uniqueName('g');
    await send('XGROUP', 'CREATE', key, group, '0');
    const read = parseStreamRead(await send('XREADGROUP', 'GROUP', group, 'c1', 'COUNT', '10', 'STREAMS', key, '>'), 'XREADGROUP');
    expect(read.map((s) => [s.key, s.entries.map((e) => e.id)])).toEqual([[key, ids]]);
    const doomed = uniqueName('stream');
    await send('XGROUP', 'CREATE', doomed, group, '$', 'MKSTREAM');
    const gone = String(await send('XADD', doomed, '*', 'f', 'z'));
    await send('XREADGROUP', 'GROUP', group, 'c1', 'STREAMS', doomed, '>');
    await send('XDEL', doomed, gone);
    // A consumer's history answers the deleted entry without fields.
    expect(parseStreamRead(await send('XREADGROUP', 'GROUP', group, 'c1', 'STREAMS', doomed, '0'), 'XREADGROUP')).toEqual([{ key: doomed, entries: [{ id: gone, fields: null }] }]);
    expect(parseAutoclaim(await send('XAUTOCLAIM', key, group, 'c2', '0', '0', 'COUNT', '2'))).toEqual({
      next: ids[2],
      entries: ids.slice(0, 2).map((id, i) => ({ id, fields: ['f', 'ab'[i], 'n', '1'] })),
      deleted: [],
    });
    expect(parseAutoclaim(await send('XAUTOCLAIM', doomed, group, 'c2', '0', '0'))).toEqual({ next: '0-0', entries: [], deleted: [gone] });
  });

  it('XINFO STREAM, before and after a trim', async () => {
    expect(reads.parseStreamInfo(await send('XINFO', 'STREAM', key))).toMatchObject({ length: 3, lastGeneratedId: ids[2], maxDeletedEntryId: '0-0', firstEntryId: ids[0], firstEntry: { id: ids[0] }, lastEntry: { id: ids[2] } });
    const trimmed = uniqueName('stream');
    const t = [];
    for (const v of ['a', 'b']) t.push(String(await send('XADD', trimmed, '*', 'f', v)));
    await send('XTRIM', trimmed, 'MAXLEN', '1');
    // A trim moves the front; only XDEL moves max-deleted-entry-id (Redis 7.0).
    expect(reads.parseStreamInfo(await send('XINFO', 'STREAM', trimmed))).toMatchObject({ length: 1, firstEntryId: t[1] });
    await send('XDEL', trimmed, t[1] as string);
    expect(reads.parseStreamInfo(await send('XINFO', 'STREAM', trimmed))).toEqual({ length: 0, lastGeneratedId: t[1], maxDeletedEntryId: t[1], firstEntryId: undefined, firstEntry: undefined, lastEntry: undefined });
  });
});

describe('typed stream reads sent by the Connection', () => {
  it('answer parsed entries, and several go in one pipeline', async () => {
    const key = uniqueName('stream');
    const a = String(await conn.command('XADD', key, '*', 'f', 'a'));
    expect(await reads.sendRead(conn, reads.xrange({ key }))).toEqual([{ id: a, fields: ['f', 'a'] }]);
    expect(await reads.sendRead(conn, reads.xtop({ key }))).toBe(a);
    expect(await reads.sendRead(conn, reads.xtop({ key: uniqueName('none') }))).toBeUndefined();
    const [info, read, missing] = await reads.sendReads(conn, [reads.xinfoStream({ key }), reads.xread({ key, after: '0-0' }), reads.xinfoStream({ key: uniqueName('none') })]);
    expect(info).toMatchObject({ ok: true, value: { length: 1, firstEntryId: a } });
    expect(read).toEqual({ ok: true, value: [{ id: a, fields: ['f', 'a'] }] });
    expect(!missing.ok && reads.isNoSuchKey(missing.error)).toBe(true);
  });
});
