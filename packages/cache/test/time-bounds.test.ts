/**
 * Every time-like option of the cache is bounded: at its bound it is admitted, past it the call is
 * refused with a typed error naming the option and the bound, before anything is written. Also the
 * open path's connection check and the "did you mean" of a typo.
 */
import { type Connection, InvalidArgumentError, MAX_SPAN_MS, MAX_TIMER_MS, OptionRangeError, UnknownOptionError } from '@echo/protocol/cache';
import { type RedisServer, startRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, type Namespace } from '../src/index.js';
import { connect } from './helpers.js';

let server: RedisServer;
let conn: Connection;
let cache: Cache;
let ns: Namespace<unknown>;
beforeAll(async () => {
  server = await startRedis();
  conn = await connect(server.url);
  cache = await Cache.open({ connection: conn });
  ns = await cache.namespace({ name: 'bounds' });
  await ns.set('present', 1);
});
afterAll(async () => {
  await cache.close();
  await conn.close();
  await server.stop();
});

async function keyspace(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await conn.command('SCAN', cursor, 'MATCH', '*', 'COUNT', 1000)) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys.sort();
}

const SPAN = MAX_SPAN_MS;
const TIMER = MAX_TIMER_MS;
let names = 0;
const fresh = (): string => `b${String(++names)}`;
const factory = (): number => 1;
const namespace = async (options: object): Promise<void> => {
  await cache.namespace({ name: fresh(), ...options });
};
const table = async (options: object): Promise<void> => {
  await cache.declare({ name: fresh(), kind: 'USR', loader: factory, ...options });
};

// [where, option, bound, at the bound, past it]
const rows: [string, string, number, () => Promise<unknown>, () => Promise<unknown>][] = [
  ['namespace options', 'ttlMs', SPAN, () => namespace({ ttlMs: SPAN }), () => namespace({ ttlMs: SPAN + 1 })],
  ['namespace options', 'graceMs', SPAN, () => namespace({ graceMs: SPAN }), () => namespace({ graceMs: SPAN + 1 })],
  ['namespace options', 'negativeTtlMs', SPAN, () => namespace({ negativeTtlMs: SPAN }), () => namespace({ negativeTtlMs: SPAN + 1 })],
  ['namespace options', 'leaseMs', TIMER, () => namespace({ leaseMs: TIMER }), () => namespace({ leaseMs: TIMER + 1 })],
  ['namespace options', 'sweepMs', TIMER, () => namespace({ sweepMs: TIMER }), () => namespace({ sweepMs: TIMER + 1 })],
  ['timeouts', 'hardMs', TIMER, () => namespace({ timeouts: { hardMs: TIMER } }), () => namespace({ timeouts: { hardMs: TIMER + 1 } })],
  ['timeouts', 'softMs', TIMER, () => ns.getOrSet('k', factory, { timeouts: { softMs: TIMER } }), () => ns.getOrSet('k2', factory, { timeouts: { softMs: TIMER + 1 } })],
  ['outage', 'l2TimeoutMs', TIMER, () => namespace({ outage: { l2TimeoutMs: TIMER } }), () => namespace({ outage: { l2TimeoutMs: TIMER + 1 } })],
  ['outage', 'openMs', TIMER, () => namespace({ outage: { openMs: TIMER } }), () => namespace({ outage: { openMs: TIMER + 1 } })],
  ['set options', 'ttlMs', SPAN, () => ns.set('s', 1, { ttlMs: SPAN }), () => ns.set('s2', 1, { ttlMs: SPAN + 1 })],
  ['set options', 'graceMs', SPAN, () => ns.set('s', 1, { ttlMs: SPAN, graceMs: SPAN }), () => ns.set('s2', 1, { graceMs: SPAN + 1 })],
  ['getOrSet options', 'ttlMs', SPAN, () => ns.getOrSet('g', factory, { ttlMs: SPAN }), () => ns.getOrSet('g2', factory, { ttlMs: SPAN + 1 })],
  ['getOrSet options', 'negativeTtlMs', SPAN, () => ns.getOrSet('g3', () => undefined, { negativeTtlMs: SPAN }), () => ns.getOrSet('g4', () => undefined, { negativeTtlMs: SPAN + 1 })],
  ['declare spec', 'ttlMs', SPAN, () => table({ ttlMs: SPAN }), () => table({ ttlMs: SPAN + 1 })],
  ['declare spec', 'sweepMs', TIMER, () => table({ sweepMs: TIMER }), () => table({ sweepMs: TIMER + 1 })],
];

describe('time-like cache options are bounded', () => {
  it.each(rows)('%s.%s: at the bound admitted, past it refused and nothing written', async (where, option, max, ok, over) => {
    await ok();
    const before = await keyspace();
    const error: unknown = await over().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OptionRangeError);
    const refused = error as OptionRangeError;
    expect(refused.option).toBe(option);
    expect(refused.where).toBe(where);
    expect(refused.max).toBe(max);
    expect(refused.message).toContain(String(max));
    expect(await keyspace()).toEqual(before);
  });

  it('Infinity still means no expiry', async () => {
    await ns.set('forever', 1, { ttlMs: Infinity });
    expect(await ns.get('forever')).toBe(1);
  });
});

describe('Cache.open connection', () => {
  it('refuses driver options under connection, with the hint to use connect, before connecting', async () => {
    const clients = String(await conn.command('CLIENT', 'LIST')).split('\n').length;
    const error: unknown = await Cache.open({ connection: { host: '127.0.0.1', port: 6379 } as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).hint).toContain('as connect');
    expect(String(await conn.command('CLIENT', 'LIST')).split('\n').length).toBe(clients);
  });
});

describe('typos', () => {
  it("ttlMS on a table names ttlMs", async () => {
    const error: unknown = await cache.declare({ name: fresh(), kind: 'USR', loader: factory, ttlMS: 5 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).suggestion).toBe('ttlMs');
    expect((error as Error).message).toContain('did you mean ttlMs?');
  });
});

describe('argument types', () => {
  it('a getOrSet factory that is not a function is a typed refusal, nothing written', async () => {
    const before = await keyspace();
    const error: unknown = await ns.getOrSet('k9', 5 as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain('factory');
    expect(await keyspace()).toEqual(before);
  });
});
