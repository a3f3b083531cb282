import { cacheAclRules, Connection, mintId, PermissionError } from '@echo/protocol/cache';
import { startRedis, waitFor, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = server.client();
  await admin.call('ACL', 'SETUSER', 'app', 'on', '>app-pw', ...cacheAclRules(['users', 'sessions', 'profiles']));
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

function connectAs(): Promise<Connection> {
  return Connection.connect({ host: server.host, port: server.port, username: 'app', password: 'app-pw' });
}

describe('least-privilege ACL for the cache pillar', () => {
  it('runs keyed namespaces (fills, tags, coherence across two processes, expire, pull, clear) as a user limited to its names', async () => {
    const [connA, connB] = await Promise.all([connectAs(), connectAs()]);
    await connA.command('SCRIPT', 'FLUSH').catch(() => undefined);
    const [cacheA, cacheB] = [await Cache.open({ connection: connA }), await Cache.open({ connection: connB })];
    const a = await cacheA.namespace<string>({ name: 'users', ttlMs: 60_000, graceMs: 60_000 });
    const b = await cacheB.namespace<string>({ name: 'users', ttlMs: 60_000 });

    expect(await a.getOrSet('user:1', () => 'Ada', { tags: ['team:1'] })).toBe('Ada');
    expect(await b.getEntry('user:1')).toMatchObject({ value: 'Ada', source: 'l2' });
    await a.set('user:2', 'Bob', { tags: ['team:1'] });
    expect(await b.getMany(['user:1', 'user:2', 'user:3'])).toEqual(['Ada', 'Bob', undefined]);
    await a.set('user:1', 'Ada Lovelace');
    await waitFor(() => b.peek('user:1')?.value !== 'Ada', { timeoutMs: 5_000 });
    expect(await b.get('user:1')).toBe('Ada Lovelace');
    expect(await a.deleteByTag('team:1')).toBe(1);
    expect(await a.delete('user:1')).toBe(true);
    await a.set('user:5', 'Eve');
    expect(await a.expire('user:5')).toBe(true);
    expect(await a.pull('user:5')).toBe('Eve');
    await a.set('user:4', 'Dan');
    await a.clear();
    expect(await b.get('user:4')).toBeUndefined();

    await Promise.all([cacheA.close(), cacheB.close()]);
    await Promise.all([connA.close(), connB.close()]);
  });

  it('runs declared tables with both coherence lanes', async () => {
    const [connA, connB] = await Promise.all([connectAs(), connectAs()]);
    const [cacheA, cacheB] = [await Cache.open({ connection: connA }), await Cache.open({ connection: connB })];
    const a = await cacheA.declare({ name: 'sessions', kind: 'USR', loader: () => 'loaded', coherence: 'broadcast' });
    const b = await cacheB.declare({ name: 'sessions', kind: 'USR', loader: () => 'never', coherence: 'broadcast' });
    const id = mintId('USR');
    await a.fetch(id);
    expect(await b.fetch(id)).toMatchObject({ source: 'l2', value: 'loaded' });
    const written = await a.put(id, 'v2');
    await a.broadcast(id, written);
    await waitFor(() => b.peek(id) === undefined, { timeoutMs: 5_000 });

    const t = await cacheA.declare({ name: 'profiles', kind: 'USR', loader: () => 'x', coherence: 'tracking' });
    const other = await cacheB.declare({ name: 'profiles', kind: 'USR', loader: () => 'y' });
    const pid = mintId('USR');
    await t.fetch(pid);
    await other.put(pid, 'z');
    await waitFor(() => t.peek(pid) === undefined, { timeoutMs: 5_000 });

    await Promise.all([cacheA.close(), cacheB.close()]);
    await Promise.all([connA.close(), connB.close()]);
  });

  it('gets a typed PermissionError on another namespace, and nothing is written', async () => {
    const conn = await connectAs();
    const cache = await Cache.open({ connection: conn });
    const error = await cache.namespace<string>({ name: 'orders' }).then((ns) => ns.set('k', 'v')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(await admin.keys('ecc:{orders}:*')).toEqual([]);
    await cache.close();
    await conn.close();
  });
});
