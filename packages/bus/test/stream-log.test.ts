import {
  IdMinter,
  InvalidArgumentError,
  KindError,
  MalformedIdError,
  NonMonotonicError,
  ServerError,
  mintId,
  queueKeys,
  type Connection,
  type EvtId,
} from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchAppendError, Bus } from '../src/index.js';
import { xaddId } from '../src/wire.js';
import { connect, purge, until } from './helpers.js';

let conn: Connection;
let bus: Bus;
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

async function freshBus(scenario: string): Promise<Bus> {
  queue = `${uniqueName('bus')}.${scenario}`;
  bus = await Bus.open(queue, { connection: conn });
  return bus;
}

describe('conformance 74 stream_verbs', () => {
  it('runs the five plain verbs on a subscribed RESP3 connection, and a push still arrives', async () => {
    await freshBus('stream_verbs');
    const key = queueKeys(queue).stream('verbs');
    const own = await conn.duplicate();
    const pushes: string[] = [];
    try {
      await own.subscribe([`${queue}.push`], { onMessage: ({ payload }) => pushes.push(payload) });

      // XADD with a server id.
      const first = mintId('EVT');
      const xid1 = (await own.command('XADD', key, '*', 'id', first, 'k', 'v1')) as string;
      expect(xid1).toMatch(/^\d+-\d+$/);
      await conn.command('PUBLISH', `${queue}.push`, 'during-verbs');

      // XRANGE: exact read-back.
      expect(await own.command('XRANGE', key, '-', '+')).toEqual([[xid1, ['id', first, 'k', 'v1']]]);

      // XREADGROUP without BLOCK.
      await own.command('XGROUP', 'CREATE', key, 'g', '0');
      const second = mintId('EVT');
      const xid2 = (await own.command('XADD', key, '*', 'id', second, 'k', 'v2')) as string;
      const readReply = (await own.command('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '10', 'STREAMS', key, '>')) as unknown[];
      expect(readReply).toEqual([key, [[xid1, ['id', first, 'k', 'v1']], [xid2, ['id', second, 'k', 'v2']]]]);

      // XACK: the count.
      expect(await own.command('XACK', key, 'g', xid1, '0-1')).toBe(1);

      // XAUTOCLAIM re-claims what c1 left unacked.
      const claimed = (await own.command('XAUTOCLAIM', key, 'g', 'c2', '0', '0', 'COUNT', '10')) as unknown[];
      expect(claimed[1]).toEqual([[xid2, ['id', second, 'k', 'v2']]]);
      expect(await own.command('XPENDING', key, 'g', '-', '+', '10')).toEqual([[xid2, 'c2', expect.any(Number), 2]]);

      // A pipelined batch of XADDs answers its ids in call order.
      const batch = await own.pipeline(Array.from({ length: 5 }, (_, i) => ['XADD', key, '*', 'id', mintId('EVT'), 'n', String(i)] as [string, ...string[]]));
      const ids = batch.map((r) => (r.ok ? (r.value as string) : 'failed'));
      const tail = ((await own.command('XRANGE', key, '(' + xid2, '+')) as [string, string[]][]).map(([xid, pairs]) => [xid, pairs[3]]);
      expect(tail).toEqual(ids.map((xid, i) => [xid, String(i)]));

      await until(() => pushes.includes('during-verbs'));
    } finally {
      await own.close();
    }
  });
});

describe('conformance 75 stream_append', () => {
  it('reads appended records back in mint order under the XADD ids of bus.md §3', async () => {
    const stream = (await freshBus('stream_append')).stream('log');
    const receipts = [await stream.append({ n: '0' }), await stream.append({ n: '1' }), await stream.append({ n: '2', extra: 'x' })];
    expect([...receipts].sort()).toEqual(receipts);

    const entries = await stream.read();
    expect(entries).toEqual([
      [receipts[0], { n: '0' }],
      [receipts[1], { n: '1' }],
      [receipts[2], { n: '2', extra: 'x' }],
    ]);
    const raw = (await conn.command('XRANGE', stream.key, '-', '+')) as [string, string[]][];
    expect(raw.map(([xid]) => xid)).toEqual(receipts.map((id) => xaddId(id)));
    expect(raw[0]?.[1]).toEqual(['id', receipts[0], 'n', '0']);
  });

  it('refuses a wrong-kind or malformed id before any wire I/O, and no key exists afterwards', async () => {
    const stream = (await freshBus('stream_append')).stream('kinds');
    const before = conn.stats().commands;
    await expect(stream.appendId('ORD000xY9Wvvcd', { a: '1' })).rejects.toThrow(KindError);
    await expect(stream.appendId('not-branded', { a: '1' })).rejects.toThrow(MalformedIdError);
    await expect(stream.appendId(mintId('EVT'), { id: 'mine' })).rejects.toThrow(InvalidArgumentError);
    await expect(stream.append({ n: 1 } as never)).rejects.toThrow(InvalidArgumentError);
    expect(conn.stats().commands).toBe(before);
    expect(await conn.command('EXISTS', stream.key)).toBe(0);
  });

  it('maps an out-of-order append to NonMonotonicError, never retrying with *', async () => {
    const stream = (await freshBus('stream_append')).stream('order');
    const early = mintId('EVT');
    const late = mintId('EVT');
    expect(await stream.appendId(late, { which: 'late' })).toBe(late);
    await expect(stream.appendId(early, { which: 'early' })).rejects.toThrow(NonMonotonicError);
    await expect(stream.appendId(late, { which: 'again' })).rejects.toThrow(NonMonotonicError);
    expect(await stream.read()).toEqual([[late, { which: 'late' }]]);
  });

  it('passes other server errors through unchanged', async () => {
    const stream = (await freshBus('stream_append')).stream('wrongtype');
    await conn.command('SET', stream.key, 'not a stream');
    const error: unknown = await stream.append({ a: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as Error).message).toMatch(/^WRONGTYPE/);
    await expect(stream.read()).rejects.toThrow(/^WRONGTYPE/);
  });
});

describe('appendBatch', () => {
  it('mints one id per record in order, sends one script for the batch, and answers the receipts in append order', async () => {
    const stream = (await freshBus('batch')).stream('batch');
    // A first batch loads the script (a NOSCRIPT, a load, a resend); the one measured after it is one command.
    await stream.appendBatch([{ warm: '1' }]);
    await conn.command('DEL', stream.key);
    const before = conn.stats();
    const ids = await stream.appendBatch(Array.from({ length: 50 }, (_, i) => ({ i: String(i) })));
    const after = conn.stats();
    expect([after.commands - before.commands, after.evalshaCalls - before.evalshaCalls, after.pipelines - before.pipelines]).toEqual([1, 1, 1]);
    expect([...ids].sort()).toEqual(ids);
    const entries = await stream.read();
    expect(entries.map(([id, f]) => [id, f.i])).toEqual(ids.map((id, i) => [id, String(i)]));
    expect(await stream.appendBatch([])).toEqual([]);
  });

  it('checks every record before sending anything', async () => {
    const stream = (await freshBus('batch')).stream('batch');
    const before = conn.stats().commands;
    await expect(stream.appendBatch([{ a: '1' }, { id: 'x' }])).rejects.toThrow(/records\[1\]/);
    expect(conn.stats().commands).toBe(before);
    expect(await conn.command('EXISTS', stream.key)).toBe(0);
  });

  it('reports which members landed when some XADDs are refused', async () => {
    queue = `${uniqueName('bus')}.batch`;
    const t = Date.UTC(2030, 0, 1);
    // The batch mints its first id at t and its second at t + 2; another writer already holds t + 1.
    const clock = [t, t + 2];
    const minter = new IdMinter({ node: 7, now: () => clock.shift() ?? t + 10 });
    const stream = (await Bus.open(queue, { connection: conn, minter })).stream('batch');
    const blocker = new IdMinter({ node: 9, now: () => t + 1 }).mint('EVT');
    await stream.appendId(blocker, { who: 'blocker' });

    const error: unknown = await stream.appendBatch([{ n: '0' }, { n: '1' }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchAppendError);
    const results = (error as BatchAppendError).results;
    expect(results.map((r) => r.ok)).toEqual([false, true]);
    expect((error as BatchAppendError).cause).toBeInstanceOf(NonMonotonicError);
    expect((await stream.read()).map(([id, f]) => [id, f.n ?? f.who])).toEqual([
      [blocker, 'blocker'],
      [results[1]?.id, '1'],
    ]);
  });
});

describe('read', () => {
  it('takes inclusive EVT id bounds and a count, never raw XADD ids', async () => {
    const stream = (await freshBus('read')).stream('r');
    const ids = await stream.appendBatch(Array.from({ length: 6 }, (_, i) => ({ i: String(i) })));
    const at = (i: number): EvtId => ids[i] as EvtId;
    expect((await stream.read({ from: at(1), to: at(3) })).map(([id]) => id)).toEqual([at(1), at(2), at(3)]);
    expect((await stream.read({ from: at(4) })).map(([id]) => id)).toEqual([at(4), at(5)]);
    expect((await stream.read({ to: at(0) })).map(([id]) => id)).toEqual([at(0)]);
    expect((await stream.read({ count: 2 })).map(([id]) => id)).toEqual([at(0), at(1)]);
    await expect(stream.read({ from: '1704067201000-0' as EvtId })).rejects.toThrow(InvalidArgumentError);
    await expect(stream.read({ count: 0 })).rejects.toThrow(InvalidArgumentError);
    expect(await bus.stream('empty').read()).toEqual([]);
  });

  it('refuses an entry that carries no EVT id instead of inventing one', async () => {
    const stream = (await freshBus('read')).stream('foreign');
    await conn.command('XADD', stream.key, '*', 'k', 'v');
    await expect(stream.read()).rejects.toThrow(MalformedIdError);
  });

  it('refuses bad names before any I/O', () => {
    expect(() => bus.stream('a:b')).toThrow(/stream name/);
    expect(() => bus.stream('')).toThrow(/stream name/);
  });
});
