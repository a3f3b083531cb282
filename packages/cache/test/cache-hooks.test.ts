import { onHook, type Connection, type TelemetryHookName } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../src/index.js';
import { connect, tableName } from './helpers.js';

let conn: Connection;
let cache: Cache;
beforeAll(async () => {
  conn = await connect();
  cache = await Cache.open({ connection: conn });
});
afterAll(async () => {
  await cache.close();
  await conn.close();
});

describe('emq.cache.* hooks', () => {
  it('fire miss, fill, hit (by tier) and evict for a keyed namespace', async () => {
    const name = tableName('hooks');
    const heard: string[] = [];
    const offs = (['emq.cache.hit', 'emq.cache.miss', 'emq.cache.fill', 'emq.cache.stale', 'emq.cache.evict'] as const satisfies readonly TelemetryHookName[]).map((hook) =>
      onHook(hook, (e) => {
        if (e.table !== name) return;
        heard.push('key' in e ? `${hook}:${e.key}${'tier' in e ? `:${e.tier}` : ''}` : `${hook}:${String(e.count)}`);
      }),
    );
    try {
      const users = await cache.namespace<string>({ name, maxSize: 2 });
      await users.getOrSet('a', () => 'Ann');
      await users.get('a');
      expect(await users.get('nobody')).toBeUndefined();
      await users.getOrSet('b', () => 'Bob');
      await users.getOrSet('c', () => 'Cid');
      const second = await Cache.open({ connection: conn });
      const other = await second.namespace<string>({ name });
      expect(await other.get('a')).toBe('Ann');
      expect(heard.slice(0, 6)).toEqual([
        'emq.cache.miss:a',
        'emq.cache.fill:a',
        'emq.cache.hit:a:l1',
        'emq.cache.miss:nobody',
        'emq.cache.miss:b',
        'emq.cache.fill:b',
      ]);
      expect(heard).toContain('emq.cache.evict:1');
      expect(heard.at(-1)).toBe('emq.cache.hit:a:l2');
      await second.close();
    } finally {
      for (const off of offs) off();
    }
  });
});
