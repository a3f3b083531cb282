/**
 * Keyed namespaces across real OS processes: one load per key for a herd spread over four processes,
 * a write seen by another process's L1, and a crashed loader's lease taken over by a waiter.
 */
import type { Connection } from '@echo/protocol/cache';
import { useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { connect, tableName } from './helpers.js';
import { type Peer, spawnPeer } from './peers.js';

let url: string;
let conn: Connection;
let cache: Cache;
const peers: Peer[] = [];

beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await connect(url);
  cache = await Cache.open({ connection: conn });
});
afterAll(async () => {
  await Promise.all(peers.splice(0).map((p) => p.kill()));
  await cache.close();
  await conn.close();
});

async function start(ns: string, count: number, env: Record<string, string> = {}): Promise<Peer[]> {
  const started = Array.from({ length: count }, () => spawnPeer(url, ns, env));
  peers.push(...started);
  await Promise.all(started.map((p) => p.ready));
  return started;
}

interface Stampede {
  sources: string[];
  values: string[];
  started: number;
  ends: number;
}

describe('keyed namespaces across processes', { timeout: 60_000 }, () => {
  it('4 processes x 100 callers on one cold key run the 200 ms loader exactly once', async () => {
    const ns = tableName('kp');
    const runsKey = `test:{${ns}}:runs`;
    const group = await start(ns, 4);
    const answers = await Promise.all(group.map((p) => p.ask<Stampede>({ op: 'stampede', key: 'cold', callers: 100, loaderMs: 200, runsKey })));
    expect(await conn.command('LLEN', runsKey)).toBe(1);
    const sources = answers.flatMap((a) => a.sources);
    expect(sources).toHaveLength(400);
    expect(sources.filter((s) => s === 'fill')).toHaveLength(100);
    expect(sources.every((s) => s === 'fill' || s === 'peer')).toBe(true);
    expect(new Set(answers.flatMap((a) => a.values)).size).toBe(1);
    const wall = Math.max(...answers.map((a) => a.ends)) - Math.min(...answers.map((a) => a.started));
    console.log(`stampede: loader ran once; 400 callers served in ${wall} ms (loader 200 ms)`);
  });

  it('a missing row cached negatively is loaded once across processes, and not again by this one', async () => {
    const ns = tableName('kp');
    const runsKey = `test:{${ns}}:runs`;
    const group = await start(ns, 2);
    const first = await Promise.all(group.map((p) => p.ask<{ value: string; source: string }>({ op: 'absent', key: 'user:404', runsKey, negativeTtlMs: 30_000 })));
    expect(first.map((a) => a.value)).toEqual(['<undefined>', '<undefined>']);
    // One loads; the other waited on its lease (peer) or came after it (l2).
    expect(first.filter((a) => a.source === 'fill')).toHaveLength(1);
    expect(first.every((a) => ['fill', 'peer', 'l2'].includes(a.source))).toBe(true);
    const again = await (group[1] as Peer).ask<{ value: string; source: string }>({ op: 'absent', key: 'user:404', runsKey });
    expect(again).toMatchObject({ value: '<undefined>' });
    expect(['hit', 'l2']).toContain(again.source);
    const here = await cache.namespace<string | undefined>({ name: ns });
    let loads = 0;
    expect(await here.getOrSetEntry('user:404', () => String(++loads))).toMatchObject({ value: undefined, source: 'l2' });
    expect(loads).toBe(0);
    expect(await conn.command('LLEN', runsKey)).toBe(1);
    expect(Number(await conn.command('PTTL', `ecc:{${ns}}:k:user:404`))).toBeLessThanOrEqual(30_000);
  });

  it('a set in this process drops the row in another process through the coherence log', async () => {
    const ns = tableName('kp');
    const [peer] = await start(ns, 1);
    const mine = await cache.namespace<string>({ name: ns });
    await mine.set('k', 'one');
    expect(await peer?.ask({ op: 'get', key: 'k' })).toMatchObject({ value: 'one', source: 'l2' });
    const watching = peer?.ask<{ at: number }>({ op: 'watch', key: 'k' });
    // The watch is armed once the peer answered a get after it: commands run in order.
    await peer?.ask({ op: 'get', key: 'k' });
    const written = Date.now();
    await mine.set('k', 'two');
    const seen = await watching;
    console.log(`invalidation seen by another process after ${String((seen?.at ?? 0) - written)} ms`);
    expect(await peer?.ask({ op: 'get', key: 'k' })).toMatchObject({ value: 'two', source: 'l2' });
  });

  it('a killed loader holds its lease until it expires; then one waiter loads', async () => {
    const ns = tableName('kp');
    const runsKey = `test:{${ns}}:runs`;
    const [doomed, survivor] = await start(ns, 2, { PEER_LEASE_MS: '600' });
    await doomed?.ask({ op: 'hang', key: 'k', runsKey });
    await expect.poll(() => conn.command('LLEN', runsKey)).toBe(1);
    const waiting = survivor?.ask<Stampede>({ op: 'stampede', key: 'k', callers: 20, loaderMs: 10, runsKey });
    await doomed?.kill();
    const answer = await waiting;
    expect(answer?.sources.every((s) => s === 'fill')).toBe(true);
    const runs = (await conn.command('LRANGE', runsKey, 0, -1)) as string[];
    expect(runs).toEqual([String(doomed?.child.pid), String(survivor?.child.pid)]);
  });
});
