/**
 * `Connection.connect` refuses an option it does not know before any socket opens, naming the
 * option it has instead when the key is an ioredis or node-redis spelling.
 */
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, UnknownOptionError } from './support.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

async function keys(): Promise<string[]> {
  const raw = server.client();
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await raw.scan(cursor, 'MATCH', '*', 'COUNT', 1000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return found.sort();
  } finally {
    raw.disconnect();
  }
}

/** [what the caller wrote, the refused key, a phrase the hint must hold (undefined: no hint)]. */
const rows: readonly [Record<string, unknown>, string, string | undefined][] = [
  [{ tls: {} }, 'tls', 'no TLS option'],
  [{ connectionName: 'api' }, 'connectionName', 'name here'],
  [{ connectTimeout: 500 }, 'connectTimeout', 'connectTimeoutMs'],
  [{ keyPrefix: 'app:' }, 'keyPrefix', 'no key prefix'],
  [{ database: 2 }, 'database', 'db here'],
  [{ sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster' }, 'sentinels', 'sentinel: {'],
  [{ maxRetriesPerRequest: null }, 'maxRetriesPerRequest', 'reconnectWaitMs'],
  [{ retryStrategy: () => 100 }, 'retryStrategy', 'backoff is fixed'],
  [{ lazyConnect: true }, 'lazyConnect', 'always connects'],
  [{ redisOptions: {} }, 'redisOptions', 'top level'],
  [{ sentinel: { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'm', sentinelPassword: 'pw' } }, 'sentinelPassword', 'sentinel.password'],
  [{ cluster: [{ host: '127.0.0.1', port: 7000, tls: true }] }, 'tls', undefined],
  [{ evictionPolicyMode: 'warn' }, 'evictionPolicyMode', undefined],
];

describe('strict connect options', () => {
  it.each(rows)('refuses %j naming %s', async (extra, key, hint) => {
    const before = await keys();
    const error = await Connection.connect({ url: server.url, ...extra }).then(
      async (conn) => {
        await conn.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnknownOptionError);
    const refused = error as UnknownOptionError;
    expect(refused.option).toBe(key);
    if (hint === undefined) expect(refused.message).toContain('known:');
    else expect(refused.hint).toContain(hint);
    expect(await keys()).toEqual(before);
  });

  it('still takes every option it knows', async () => {
    const conn = await Connection.connect({ url: server.url, name: 'strict-ok', connectTimeoutMs: 5000, reconnectWaitMs: 5000, evictionPolicy: 'refuse' });
    await conn.close();
  });
});
