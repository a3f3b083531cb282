/**
 * Issue 28: a coherence feed whose replies stop while its socket stays open (a held link) must not
 * leave L1 answering with values older than a write another process has acknowledged. Only the log
 * reader's connection goes through the proxy; the namespace's L2 calls go direct.
 */
import { Connection } from '@echo/protocol/cache';
import { startLinkProxy, startRedis, type LinkProxy, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { tableName, until } from './helpers.js';

let server: RedisServer;
let proxy: LinkProxy;
let direct: Connection;
let far: Connection;
let writerConn: Connection;

/**
 * `direct` for every call, except that the duplicates it opens (the coherence log reader's own
 * connection) are `far`'s, through the proxy. Methods are bound to their own objects, whose private
 * state a proxy could not reach.
 */
function feedThroughProxy(): Connection {
  return new Proxy(direct, {
    get(target, prop) {
      const owner = prop === 'duplicate' ? far : target;
      const value: unknown = Reflect.get(owner, prop);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(owner) : value;
    },
  });
}

beforeAll(async () => {
  server = await startRedis();
  proxy = await startLinkProxy({ target: { host: '127.0.0.1', port: server.port } });
  direct = await Connection.connect(server.url);
  // A reply timeout longer than the test: the feed must be found lost by its own bound, not by a reconnect.
  far = await Connection.connect({ host: proxy.host, port: proxy.port, replyTimeoutMs: 60_000 });
  writerConn = await Connection.connect(server.url);
});
afterAll(async () => {
  proxy.release();
  await far.close({ immediate: true });
  await direct.close({ immediate: true });
  await writerConn.close({ immediate: true });
  await proxy.close();
  await server.stop();
});

describe('keyed namespaces: a held coherence feed (issue 28)', { timeout: 60_000 }, () => {
  it('stops L1 answering once the feed is silent past its bound, and resumes after it caught up', async () => {
    const name = tableName('hold');
    const readerCache = await Cache.open({ connection: feedThroughProxy() });
    const writerCache = await Cache.open({ connection: writerConn });
    try {
      const reader = await readerCache.namespace<number>({ name });
      const writer = await writerCache.namespace<number>({ name });
      await writer.set('k', 1);
      expect(await reader.getEntry('k')).toMatchObject({ value: 1, source: 'l2' });
      expect(await reader.getEntry('k')).toMatchObject({ value: 1, source: 'hit' });

      proxy.hold();
      const ackedAt = performance.now();
      await writer.set('k', 2);
      // The log entry for 2 is held in the proxy: only a read that skips L1 can see 2.
      await until(async () => (await reader.get('k')) === 2, 10_000);
      const seenAfter = performance.now() - ackedAt;
      // Block (1 s) + margin (1 s) + one watch period, with room for a loaded machine.
      expect(seenAfter).toBeLessThan(5_000);
      expect(reader.stats().log).toMatchObject({ live: false });
      expect(reader.stats().log?.stalls).toBeGreaterThanOrEqual(1);
      expect(await reader.getEntry('k')).toMatchObject({ value: 2, source: 'l2' });
      expect(proxy.heldBytes).toBeGreaterThan(0);

      proxy.release();
      await until(() => reader.stats().log?.live === true, 10_000);
      expect(await reader.getEntry('k')).toMatchObject({ value: 2, source: 'hit' });
    } finally {
      await readerCache.close();
      await writerCache.close();
    }
  });
});
