import { type Connection, InvalidArgumentError, UnknownOptionError } from '@echo/protocol/cache';
import { type RedisServer, startRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, type Namespace } from '../src/index.js';
import { connect } from './helpers.js';

// Its own server: the keyspace before and after each refused call must be exactly equal.
let server: RedisServer;
let conn: Connection;
let cache: Cache;
let ns: Namespace<unknown>;
beforeAll(async () => {
  server = await startRedis();
  conn = await connect(server.url);
  cache = await Cache.open({ connection: conn });
  ns = await cache.namespace({ name: 'strict', graceMs: 60_000 });
  await ns.set('present', { a: 1 }, { tags: ['t'] });
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

const factory = (): number => 1;
type Call = () => Promise<unknown>;

// [where the call went, the foreign key, the call, a word the hint must contain (or null: no hint, the known list)]
const rows: [string, string, Call, string | null][] = [
  ['getOrSet options', 'skipBusNotify', () => ns.getOrSet('k1', factory, { skipBusNotify: true } as never), 'coherence'],
  ['getOrSet options', 'skipL2Write', () => ns.getOrSet('k1', factory, { skipL2Write: true } as never), 'coherence: false'],
  ['getOrSet options', 'lockTimeout', () => ns.getOrSet('k1', factory, { lockTimeout: 1000 } as never), 'leaseMs'],
  ['getOrSet options', 'suppressL2Errors', () => ns.getOrSet('k1', factory, { suppressL2Errors: true } as never), 'outage'],
  ['getOrSet options', 'gracePeriod', () => ns.getOrSet('k1', factory, { gracePeriod: { enabled: true } } as never), 'grace'],
  ['getOrSet options', 'timeout', () => ns.getOrSet('k1', factory, { timeout: 100 } as never), 'timeouts: { softMs }'],
  ['getOrSet options', 'hardTimeout', () => ns.getOrSet('k1', factory, { hardTimeout: 100 } as never), 'timeouts: { hardMs }'],
  ['getOrSet options', 'earlyExpiration', () => ns.getOrSet('k1', factory, { earlyExpiration: 0.8 } as never), 'grace'],
  ['getOrSet options', 'factory', () => ns.getOrSet('k1', factory, { factory } as never), 'second argument'],
  ['getOrSet options', 'ttl', () => ns.getOrSet('k1', factory, { ttl: 100 } as never), 'ttlMs'],
  ['getOrSet options', 'grace', () => ns.getOrSet('k1', factory, { grace: 100 } as never), 'graceMs'],
  ['getOrSet options', 'negativeTtl', () => ns.getOrSet('k1', factory, { negativeTtl: 100 } as never), 'negativeTtlMs'],
  ['set options', 'ttl', () => ns.set('k2', 1, { ttl: 100 } as never), 'ttlMs'],
  ['set options', 'grace', () => ns.set('k2', 1, { grace: 100 } as never), 'graceMs'],
  ['namespace options', 'ttl', () => cache.namespace({ name: 'n1', ttl: 100 } as never), 'ttlMs'],
  ['namespace options', 'grace', () => cache.namespace({ name: 'n1', grace: 100 } as never), 'graceMs'],
  ['namespace options', 'negativeTtl', () => cache.namespace({ name: 'n1', negativeTtl: 100 } as never), 'negativeTtlMs'],
  ['timeouts', 'soft', () => ns.getOrSet('k1', factory, { timeouts: { soft: 0 } } as never), 'softMs'],
  ['timeouts', 'hard', () => cache.namespace({ name: 'n1', timeouts: { hard: 5 } } as never), 'hardMs'],
  ['set options', 'skipBusNotify', () => ns.set('k2', 1, { skipBusNotify: true } as never), 'coherence'],
  ['set options', 'forceFresh', () => ns.set('k2', 1, { forceFresh: true } as never), 'getOrSet'],
  ['set options', 'timeouts', () => ns.set('k2', 1, { timeouts: { soft: 1 } } as never), 'getOrSet'],
  ['get options', 'defaultValue', () => ns.get('k3', { defaultValue: 1 } as never), 'get(key, { default })'],
  ['get options', 'default', () => ns.getEntry('k3', { default: 1 } as never), 'get(key, { default })'],
  ['getOrSet options', 'skip', () => ns.getOrSet('k1', factory, { skip: true } as never), 'ctx.skip()'],
  ['getOrSet options', 'default', () => ns.getOrSet('k1', factory, { default: 1 } as never), 'get(key, { default })'],
  ['getOrSet options', 'negativeTTL', () => ns.getOrSet('k1', factory, { negativeTTL: 5 } as never), null],
  ['pull options', 'default', () => ns.pull('present', { default: 1 } as never), '?? fallback'],
  ['pull options', 'ttl', () => ns.pull('present', { ttl: 5 } as never), null],
  ['expire options', 'grace', () => ns.expire('present', { grace: 5 } as never), "namespace's graceMs"],
  ['expire options', 'ttl', () => ns.expire('present', { ttl: 5 } as never), 'set(key, value, { ttlMs })'],
  ['namespace options', 'negativeTTL', () => cache.namespace({ name: 'n1', negativeTTL: 5 } as never), null],
  ['get options', 'ttl', () => ns.getEntry('present', { ttl: 5 } as never), 'set(key, value, { ttlMs })'],
  ['delete options', 'skipBusNotify', () => ns.delete('present', { skipBusNotify: true } as never), 'coherence'],
  ['delete options', 'key', () => ns.deleteMany(['present'], { key: 'present' } as never), 'first argument'],
  ['deleteByTag options', 'tags', () => ns.deleteByTag('t', { tags: ['t'] } as never), 'once per tag'],
  ['timeouts', 'hardTimeout', () => ns.getOrSet('k1', factory, { timeouts: { hardTimeout: 5 } } as never), 'hard'],
  ['namespace options', 'prefix', () => cache.namespace({ name: 'n1', prefix: 'app' } as never), 'name'],
  ['namespace options', 'serialize', () => cache.namespace({ name: 'n1', serialize: false } as never), "read: 'frozen'"],
  ['namespace options', 'l2', () => cache.namespace({ name: 'n1', l2: false } as never), 'l1: false'],
  ['namespace options', 'driver', () => cache.namespace({ name: 'n1', driver: {} } as never), 'Cache.open'],
  ['namespace options', 'lockTimeout', () => cache.namespace({ name: 'n1', lockTimeout: 5 } as never), 'leaseMs'],
  ['namespace options', 'maxItems', () => cache.namespace({ name: 'n1', maxItems: 5 } as never), 'maxSize'],
  ['outage', 'timeoutMs', () => cache.namespace({ name: 'n1', outage: { timeoutMs: 5 } } as never), null],
  ['Cache.open options', 'stores', () => Cache.open({ connection: conn, stores: {} } as never), 'connect'],
  ['Cache.open options', 'url', () => Cache.open({ url: server.url } as never), 'connect'],
  ['Cache.open options', 'prefix', () => Cache.open({ connection: conn, prefix: 'x' } as never), 'name'],
  ['declare spec', 'ttl', () => cache.declare({ name: 'tbl', kind: 'USR', loader: factory, ttl: 5 } as never), 'ttlMs'],
  ['declare spec', 'grace', () => cache.declare({ name: 'tbl', kind: 'USR', loader: factory, grace: 5 } as never), 'namespace'],
];

describe('strict options: a foreign or misspelt option is refused, named, hinted, and nothing is written', () => {
  it.each(rows)('%s.%s', async (where, option, call, hint) => {
    const before = await keyspace();
    const error: unknown = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnknownOptionError);
    const refused = error as UnknownOptionError;
    expect(refused.option).toBe(option);
    expect(refused.where).toBe(where);
    expect(refused.message).toContain(`${where}.${option}`);
    if (hint === null) {
      expect(refused.hint).toBeUndefined();
      expect(refused.message).toContain('known:');
    } else {
      expect(refused.hint).toContain(hint);
    }
    expect(await keyspace()).toEqual(before);
  });

  it.each<[string, Call, string]>([
    ["getOrSet's ttl as bentocache's '1h'", () => ns.getOrSet('k1', factory, { ttlMs: '1h' } as never), "3_600_000 for '1h'"],
    ["set's grace as '6h'", () => ns.set('k2', 1, { graceMs: '6h' } as never), 'milliseconds'],
    ["namespace's ttl as '10m'", () => cache.namespace({ name: 'n2', ttlMs: '10m' } as never), 'not a duration string'],
    ["namespace's negativeTtl as '5m'", () => cache.namespace({ name: 'n2', negativeTtlMs: '5m' } as never), 'not a duration string'],
    ["getOrSet's negativeTtl as 0", () => ns.getOrSet('k1', factory, { negativeTtlMs: 0 }), 'positive integer'],
    ["namespace's logMaxLen below one read of the log", () => cache.namespace({ name: 'n2', logMaxLen: 100 }), 'at least 512'],
    ["getOrSet's cacheIf as a boolean", () => ns.getOrSet('k1', factory, { cacheIf: false } as never), 'must be a function'],
    ["namespace's cacheIf as a boolean", () => cache.namespace({ name: 'n2', cacheIf: true } as never), 'must be a function'],
    ['a namespace name as a string', () => cache.namespace('users' as never), "cache.namespace({ name: \"users\" })"],
    ['Cache.open with a URL string', () => Cache.open(server.url as never), 'Cache.open({ connect:'],
    ['Cache.open with connection and connect', () => Cache.open({ connection: conn, connect: server.url }), 'not both'],
  ])('%s is an InvalidArgumentError that says what to write', async (_, call, words) => {
    const before = await keyspace();
    await expect(call()).rejects.toSatisfy((e: unknown) => e instanceof InvalidArgumentError && !(e instanceof UnknownOptionError) && e.message.includes(words));
    expect(await keyspace()).toEqual(before);
  });

  it('has at least 15 rows of foreign names', () => {
    expect(rows.length).toBeGreaterThanOrEqual(15);
  });
});
