import { type RedisServer, startRedis } from '@echo/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runApp } from './run-app.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

it("runs a bentocache user's app: day one from the cache README, then every cache recipe", async () => {
  const { code, stdout, stderr } = await runApp('apps/bentocache-user/main.ts', server.url);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const lines = stdout.trim().split('\n');
  expect(lines).toEqual([
    'getOrSet x20: product 1, loads=1',
    'again: source=hit, loads=1',
    'namespace twice: same handle=true',
    'namespace with another ttl: NamespaceOptionsError (option ttlMs)',
    'other cache reads: product 1',
    "after the other cache's set: product 1 (renamed)",
    'deleteByTag catalog: 2 deleted; product:3 still product 3',
    'delete product:3: true, then get: undefined',
    expect.stringMatching(/^skipBusNotify: UnknownOptionError -> every write here carries its own coherence entry/),
    expect.stringMatching(/^ttl as a string: UnknownOptionError -> ttlMs here/),
    expect.stringMatching(/^timeout: UnknownOptionError -> the soft factory timeout is timeouts: \{ softMs \}/),
    'product:4 after the refused calls: undefined',
    '2 MiB value: ValueTooLargeError, cap 1048576 bytes',
    // docs/guide/cache-recipes.md, in its order.
    'negative caching: 3 lookups of a missing product, 1 database query',
    'negative caching: has=false, get with a default=no such product',
    'negative caching: after a 1 ms negativeTtlMs the next lookup queries again: true',
    'cacheIf: a draft twice -> uncached, uncached; renders=2',
    'cacheIf per call: a kept draft reads back as hit',
    'ctx.skip(): coming soon served twice as uncached, uncached; stored=false',
    'uncached answers counted: pages 2, prices 2',
    'grace: after expire, get answers stale product 8',
    'grace: refresh failed, served stale product 8',
    'grace: slow refresh, served stale product 8; the factory saw ctx.stale=product 8',
    'grace: once the refresh landed: product 8 (new price)',
    'reads: getMany [1299,499,null]',
    'reads: getEntry from hit, peek in this process 1299',
    'reads: forceFresh loads even when fresh: 1399',
    'reads: pull 499, then get undefined',
    'tables: fetch fill then hit, Ada on free, loads=1',
    'tables: the other process reads l2',
    'tables: after put and broadcast the other process reads plan pro; loads=1',
    'done',
  ]);
}, 90_000);
