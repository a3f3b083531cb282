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

it("runs a bentocache user's day one from the cache README", async () => {
  const { code, stdout, stderr } = await runApp('apps/bentocache-user.ts', server.url);
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
    'done',
  ]);
}, 90_000);
