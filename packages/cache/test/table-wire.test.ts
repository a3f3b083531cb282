import { type Connection, cacheKey, mintId } from '@echo/protocol/cache';
import { useRedis } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/tables.js';
import { connect, tableName, until } from './helpers.js';

// What the server runs for a declared table, watched with MONITOR: the commands and bytes cache.md
// §3-§5 specify, whatever path inside the package the fetch takes.
let conn: Connection;
let a: Cache;
let b: Cache;
let monitor: Redis;
const seen: string[][] = [];
beforeAll(async () => {
  conn = await connect();
  a = await Cache.open({ connection: conn });
  b = await Cache.open({ connection: conn });
  monitor = await (await useRedis()).client().monitor();
  monitor.on('monitor', (_time: string, args: string[]) => seen.push([String(args[0]).toUpperCase(), ...args.slice(1)]));
});
afterAll(async () => {
  monitor.disconnect();
  await a.close();
  await b.close();
  await conn.close();
});

/** The commands naming `table` that `work` sent, once the server has reported them all. */
async function commands(table: string, work: () => Promise<unknown>): Promise<string[][]> {
  // MONITOR reports in order but late: a marker before the work drains what earlier steps sent
  // (a declare's SUBSCRIBE), a marker after it proves the work's own commands have all arrived.
  await mark(`before-${table}`);
  seen.length = 0;
  await work();
  const after = await mark(`after-${table}`);
  return seen.filter((args) => args[1] !== after && args.some((arg) => arg.includes(table)));
}

/** Sends a unique ECHO and waits until MONITOR has reported it; answers the marker. */
async function mark(prefix: string): Promise<string> {
  const marker = `${prefix}-${String(Math.random())}`;
  await conn.command('ECHO', marker);
  await until(() => seen.some((args) => args[1] === marker));
  return marker;
}

describe('declared-table wire (cache.md §3-§5)', () => {
  it('a miss is one GET then one SET … PX of version ++ value; a second process reads with one GET; a hit sends nothing', async () => {
    const name = tableName('w');
    const spec = { name, kind: 'USR', loader: () => 'loaded', ttlMs: 30_000 } as const;
    const ta = await a.declare(spec);
    const tb = await b.declare(spec);
    const id = mintId('USR');
    const key = cacheKey(name, id);
    let version = '';
    expect(
      await commands(name, async () => {
        const fetched = await ta.fetch(id);
        expect(fetched.source).toBe('fill');
        version = fetched.version;
      }),
    ).toEqual([
      ['GET', key],
      ['SET', key, `${version}"loaded"`, 'PX', '30000'],
    ]);
    expect(await commands(name, async () => expect((await tb.fetch(id)).source).toBe('l2'))).toEqual([['GET', key]]);
    expect(await commands(name, async () => expect((await ta.fetch(id)).source).toBe('hit'))).toEqual([]);
  });

  it('a herd of 20 misses on one id sends one GET and one SET', async () => {
    const name = tableName('w');
    const t = await a.declare({ name, kind: 'USR', loader: () => 'herd', ttlMs: 10_000 });
    const id = mintId('USR');
    const sent = await commands(name, () => Promise.all(Array.from({ length: 20 }, () => t.fetch(id))));
    expect(sent.map((args) => args[0])).toEqual(['GET', 'SET']);
    expect(t.stats()).toMatchObject({ misses: 20, coalesced: 19, fills: 1 });
  });

  it('a put is one SET … PX and publishes nothing; invalidate is one DEL', async () => {
    const name = tableName('w');
    const t = await a.declare({ name, kind: 'USR', loader: () => 'x', ttlMs: 5_000, coherence: 'broadcast' });
    const id = mintId('USR');
    const key = cacheKey(name, id);
    let version = '';
    expect(await commands(name, async () => (version = await t.put(id, 'put')))).toEqual([['SET', key, `${version}"put"`, 'PX', '5000']]);
    expect(await commands(name, () => t.invalidate(id))).toEqual([['DEL', key]]);
  });
});
