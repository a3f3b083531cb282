import { startRedis, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, Connection, ConnectionLostError, FENCE_KEY, VersionFenceError, WIRE_VERSION, mintId, queueKeys, scripts } from './support.js';

// The fence is one key shared by the whole server: these tests own their server and run in order.
let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = server.client();
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});
beforeEach(async () => {
  await admin.del(FENCE_KEY);
});
afterEach(async () => {
  await admin.del(FENCE_KEY);
});

describe('version fence', { concurrent: false }, () => {
  it('claims an absent fence with exactly echomq:3.0.0 before any other work', async () => {
    const c = await Connection.connect(server.url);
    expect(await admin.get(FENCE_KEY)).toBe(WIRE_VERSION);
    expect(WIRE_VERSION).toBe('echomq:3.0.0');
    await c.close();
  });

  it('accepts a stored value with the same major and never rewrites it', async () => {
    await admin.set(FENCE_KEY, 'echomq:3.9.9');
    const c = await Connection.connect(server.url);
    expect(await c.command('PING')).toBe('PONG');
    expect(await admin.get(FENCE_KEY)).toBe('echomq:3.9.9');
    await c.close();
  });

  it.each([
    ['echomq:4.0.0', 'version_major_mismatch'],
    ['echomq:2.4.2', 'version_major_mismatch'],
    ['garbage', 'foreign_version'],
    ['echomq:3.0', 'foreign_version'],
  ])('refuses %s with %s and leaves it in place', async (stored, code) => {
    await admin.set(FENCE_KEY, stored);
    const error = await Connection.connect({ url: server.url, connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionFenceError);
    expect((error as VersionFenceError).code).toBe(code);
    expect((error as VersionFenceError).found).toBe(stored);
    expect(await admin.get(FENCE_KEY)).toBe(stored);
  });

  it('lets exactly one of many racing connectors claim the fence', async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => Connection.connect(server.url)));
    expect(await admin.get(FENCE_KEY)).toBe(WIRE_VERSION);
    await Promise.all(all.map((c) => c.close()));
  });

  it('stops for good when the fence changed while disconnected, and writes nothing after', async () => {
    const c = await Connection.connect({ url: server.url, name: 'echo-fenced' });
    const k = queueKeys('fenced');
    await admin.set(FENCE_KEY, 'echomq:4.0.0');
    await admin.call('CLIENT', 'KILL', 'SKIPME', 'yes', 'TYPE', 'normal');
    const id = mintId('JOB');
    // Calls may meet the dying socket (ConnectionLostError) before the reconnect meets the fence.
    let error: unknown;
    for (let i = 0; i < 5; i++) {
      error = await c.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'x']).catch((e: unknown) => e);
      if (!(error instanceof ConnectionLostError)) break;
    }
    expect(error).toBeInstanceOf(VersionFenceError);
    expect((error as VersionFenceError).code).toBe('version_major_mismatch');
    expect(c.status).toBe('fatal');
    // No further attempt: every later waiter gets the same error, and nothing reaches the server.
    await expect(c.command('PING')).rejects.toBeInstanceOf(VersionFenceError);
    await new Promise((r) => setTimeout(r, 300));
    expect(await admin.exists(k.job(id), k.pending)).toBe(0);
    const clients = (await admin.call('CLIENT', 'LIST')) as string;
    expect(clients).not.toContain('name=echo-fenced');
    await c.close();
  });
});

describe('auth', () => {
  let locked: RedisServer;
  beforeAll(async () => {
    locked = await startRedis({ password: 's3cret' });
  });
  afterAll(async () => {
    await locked.stop();
  });

  it('connects with the password and refuses a wrong one with AuthError', async () => {
    const ok = await Connection.connect({ url: locked.url, connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(ok).toBeInstanceOf(Connection);
    await (ok as Connection).close();
    const bad = await Connection.connect({ host: locked.host, port: locked.port, password: 'nope', connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(AuthError);
  });
});
