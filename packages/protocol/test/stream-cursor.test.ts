import { startRedis, uniqueName, useRedis, waitFor, type RedisTarget } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, InvalidArgumentError, StreamCursor, type StreamEntryReply, type StreamGap } from './support.js';

let target: RedisTarget;
let conn: Connection;

beforeAll(async () => {
  target = await useRedis();
  conn = await Connection.connect(target.url);
});
afterAll(async () => {
  await conn.close();
});

async function add(key: string, value: string): Promise<string> {
  return String(await conn.command('XADD', key, '*', 'v', value));
}

/** The server-side id of the one client named `name`. */
async function clientId(name: string): Promise<string | undefined> {
  const list = String(await conn.command('CLIENT', 'LIST'));
  return /^id=(\d+) /.exec(list.split('\n').find((l) => l.includes(` name=${name} `)) ?? '')?.[1];
}

/** Whether the client named `name` is blocked in XREAD right now. */
async function blockedInXread(name: string): Promise<boolean> {
  const id = await clientId(name);
  return id !== undefined && String(await conn.command('CLIENT', 'LIST', 'ID', id)).includes('cmd=xread');
}

async function take(cursor: StreamCursor, n: number): Promise<StreamEntryReply[]> {
  const out: StreamEntryReply[] = [];
  while (out.length < n) {
    const next = await cursor.next();
    if (next.done === true) break;
    out.push(next.value);
  }
  return out;
}

const values = (entries: readonly StreamEntryReply[]): string[] => entries.map((e) => e.fields?.[1] ?? '?');

describe('StreamCursor start modes', () => {
  it('head reads everything the stream holds, in order', async () => {
    const key = uniqueName('cur');
    for (const v of ['a', 'b', 'c']) await add(key, v);
    const cursor = new StreamCursor(conn, key, { from: 'head', count: 2 });
    try {
      expect(values(await take(cursor, 3))).toEqual(['a', 'b', 'c']);
    } finally {
      await cursor.close();
    }
  });

  it('new skips what was there when it opened and reads nothing appended after ready() is lost', async () => {
    const key = uniqueName('cur');
    await add(key, 'old');
    const cursor = new StreamCursor(conn, key, { from: 'new', blockMs: 100 });
    try {
      await cursor.ready();
      // Appended before the first read, after ready(): `$` resolved to the top is what keeps these.
      await add(key, 'x');
      await add(key, 'y');
      expect(values(await take(cursor, 2))).toEqual(['x', 'y']);
    } finally {
      await cursor.close();
    }
  });

  it('new on a stream that does not exist yet reads its first entries', async () => {
    const key = uniqueName('cur');
    const cursor = new StreamCursor(conn, key, { blockMs: 100 });
    try {
      await cursor.ready();
      expect(cursor.position).toBe('0-0');
      await add(key, 'first');
      expect(values(await take(cursor, 1))).toEqual(['first']);
    } finally {
      await cursor.close();
    }
  });

  it('{ after } resumes after an id', async () => {
    const key = uniqueName('cur');
    const ids = [];
    for (const v of ['a', 'b', 'c']) ids.push(await add(key, v));
    const cursor = new StreamCursor(conn, key, { from: { after: ids[0] as string } });
    try {
      expect(values(await take(cursor, 2))).toEqual(['b', 'c']);
      expect(cursor.position).toBe(ids[2]);
    } finally {
      await cursor.close();
    }
  });

  it('opens one connection and resolves new once when ready() and reads race', async () => {
    const key = uniqueName('cur');
    await add(key, 'old');
    const name = uniqueName('cursor');
    const cursor = new StreamCursor(conn, key, { blockMs: 50, connectionName: name });
    try {
      await Promise.all([cursor.ready(), cursor.ready(), cursor.read()]);
      const named = String(await conn.command('CLIENT', 'LIST')).split('\n').filter((l) => l.includes(` name=${name} `));
      expect(named).toHaveLength(1);
      await add(key, 'new');
      expect(values(await take(cursor, 1))).toEqual(['new']);
    } finally {
      await cursor.close();
    }
  });

  it('refuses a bad start, count or block before opening anything', () => {
    expect(() => new StreamCursor(conn, 'k', { from: { after: '$' } })).toThrow(InvalidArgumentError);
    expect(() => new StreamCursor(conn, 'k', { from: 'tail' as never })).toThrow(/from/);
    expect(() => new StreamCursor(conn, 'k', { count: 0 })).toThrow(/count/);
    expect(() => new StreamCursor(conn, 'k', { blockMs: -1 })).toThrow(/blockMs/);
    expect(() => new StreamCursor(conn, '')).toThrow(/key/);
  });
});

describe('StreamCursor reading', () => {
  it('blocks on its own connection and delivers an entry appended while it waits', async () => {
    const key = uniqueName('cur');
    const name = uniqueName('cursor');
    const cursor = new StreamCursor(conn, key, { blockMs: 10_000, connectionName: name });
    try {
      const pending = cursor.next();
      await waitFor(() => blockedInXread(name), { what: 'the cursor blocked in XREAD' });
      await add(key, 'late');
      expect((await pending).value?.fields).toEqual(['v', 'late']);
    } finally {
      await cursor.close();
    }
  });

  it('read() answers batches and says when it caught up', async () => {
    const key = uniqueName('cur');
    for (const v of ['a', 'b', 'c']) await add(key, v);
    const cursor = new StreamCursor(conn, key, { from: 'head', count: 2, blockMs: 50 });
    try {
      const first = await cursor.read();
      expect([values(first.entries), first.caughtUp]).toEqual([['a', 'b'], false]);
      const second = await cursor.read();
      expect([values(second.entries), second.caughtUp]).toEqual([['c'], true]);
      expect(await cursor.read()).toEqual({ entries: [], caughtUp: true });
    } finally {
      await cursor.close();
    }
  });

  it('resumes after the last id it delivered when its connection is killed', async () => {
    const key = uniqueName('cur');
    const name = uniqueName('cursor');
    const cursor = new StreamCursor(conn, key, { from: 'head', blockMs: 10_000, connectionName: name });
    const lost: Error[] = [];
    cursor.on('lost', ({ error }) => lost.push(error));
    try {
      await add(key, 'a');
      expect(values(await take(cursor, 1))).toEqual(['a']);
      const pending = take(cursor, 2);
      await waitFor(() => blockedInXread(name), { what: 'the cursor blocked in XREAD' });
      await conn.command('CLIENT', 'KILL', 'ID', (await clientId(name)) as string);
      // Written while the cursor's socket is down or coming back.
      await add(key, 'b');
      await add(key, 'c');
      expect(values(await pending)).toEqual(['b', 'c']);
      expect(lost.length).toBeGreaterThanOrEqual(1);
    } finally {
      await cursor.close();
    }
  });

  it('reports a gap when entries it never read were trimmed, then reads on from what is left', async () => {
    const key = uniqueName('cur');
    const ids = [];
    for (const v of ['a', 'b', 'c', 'd', 'e']) ids.push(await add(key, v));
    const cursor = new StreamCursor(conn, key, { from: 'head', count: 1, blockMs: 50 });
    const gaps: StreamGap[] = [];
    cursor.on('gap', (gap) => gaps.push(gap));
    try {
      expect(values(await take(cursor, 1))).toEqual(['a']);
      await conn.command('XTRIM', key, 'MAXLEN', '2');
      expect(values(await take(cursor, 2))).toEqual(['d', 'e']);
      expect(gaps).toEqual([{ after: ids[0], firstRetained: ids[3] }]);
    } finally {
      await cursor.close();
    }
  });

  it('reports no gap when a trim takes only what it already read', async () => {
    const key = uniqueName('cur');
    for (const v of ['a', 'b', 'c']) await add(key, v);
    const cursor = new StreamCursor(conn, key, { from: 'head', count: 2, blockMs: 50 });
    const gaps: StreamGap[] = [];
    cursor.on('gap', (gap) => gaps.push(gap));
    try {
      expect(values(await take(cursor, 2))).toEqual(['a', 'b']);
      await conn.command('XTRIM', key, 'MAXLEN', '2');
      await add(key, 'd');
      expect(values(await take(cursor, 2))).toEqual(['c', 'd']);
      expect(gaps).toEqual([]);
    } finally {
      await cursor.close();
    }
  });

  it('reports a gap on a start { after } the stream no longer holds', async () => {
    const key = uniqueName('cur');
    const ids = [];
    for (const v of ['a', 'b', 'c']) ids.push(await add(key, v));
    await conn.command('XTRIM', key, 'MAXLEN', '1');
    const cursor = new StreamCursor(conn, key, { from: { after: ids[0] as string }, blockMs: 50 });
    const gaps: StreamGap[] = [];
    cursor.on('gap', (gap) => gaps.push(gap));
    try {
      expect(values(await take(cursor, 1))).toEqual(['c']);
      expect(gaps).toEqual([{ after: ids[0], firstRetained: ids[2] }]);
    } finally {
      await cursor.close();
    }
  });

  it('close() while blocked ends the iteration at once and closes its connection', async () => {
    const key = uniqueName('cur');
    const name = uniqueName('cursor');
    const cursor = new StreamCursor(conn, key, { blockMs: 60_000, connectionName: name });
    const pending = cursor.next();
    await waitFor(() => blockedInXread(name), { what: 'the cursor blocked in XREAD' });
    const started = Date.now();
    await cursor.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(async () => (await clientId(name)) === undefined, { what: 'the cursor connection gone' });
    expect(cursor.closed).toBe(true);
    expect(await cursor.read()).toEqual({ entries: [], caughtUp: true });
  });

  it('break in a for await closes it', async () => {
    const key = uniqueName('cur');
    for (const v of ['a', 'b']) await add(key, v);
    const cursor = new StreamCursor(conn, key, { from: 'head' });
    for await (const entry of cursor) {
      expect(entry.fields).toEqual(['v', 'a']);
      break;
    }
    expect(cursor.closed).toBe(true);
  });
});

describe('StreamCursor under retainsAtLeast (a stream only ever trimmed to that many entries)', () => {
  /** `XINFO STREAM` calls so far, on a server of the test's own (commandstats counts every client). */
  async function xinfoCalls(c: Connection): Promise<number> {
    return Number(/cmdstat_xinfo\|stream:calls=(\d+)/.exec(String(await c.command('INFO', 'commandstats')))?.[1] ?? 0);
  }

  it('reads after a batch that caught up send no XINFO STREAM, and a trim past the position still reads as a gap', async () => {
    const server = await startRedis();
    const own = await Connection.connect(server.url);
    const key = uniqueName('cur');
    const cursor = new StreamCursor(own, key, { from: 'head', count: 2, blockMs: 50, retainsAtLeast: 2 });
    const gaps: StreamGap[] = [];
    cursor.on('gap', (gap) => gaps.push(gap));
    const append = async (value: string): Promise<string> => String(await own.command('XADD', key, '*', 'v', value));
    try {
      await append('a');
      expect(values((await cursor.read()).entries)).toEqual(['a']);
      const b = await append('b');
      expect(values((await cursor.read()).entries)).toEqual(['b']);
      expect(await xinfoCalls(own)).toBe(0);
      // A burst and a trim by the bound take entries it never read: the full batch it then reads is checked when it arrives.
      const ids = [await append('c'), await append('d'), await append('e')];
      await own.command('XTRIM', key, 'MAXLEN', '2');
      expect(values((await cursor.read()).entries)).toEqual(['d', 'e']);
      expect(gaps).toEqual([{ after: b, firstRetained: ids[1] }]);
      // Past the full batch the next read is checked before it goes (it may lag): no second report for the same hole.
      await append('f');
      expect(values((await cursor.read()).entries)).toEqual(['f']);
      expect(gaps).toHaveLength(1);
    } finally {
      await cursor.close();
      await own.close();
      await server.stop();
    }
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new StreamCursor(conn, 'k', { retainsAtLeast: 0 })).toThrow(InvalidArgumentError);
  });
});
