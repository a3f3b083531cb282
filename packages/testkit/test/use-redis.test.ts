import { afterAll, describe, expect, it } from 'vitest';
import { liveCount, startRedis, useRedis, type RedisServer } from '../src/index.js';

const saved = process.env.REDIS_URL;
let own: RedisServer | undefined;

afterAll(async () => {
  if (saved === undefined) delete process.env.REDIS_URL;
  else process.env.REDIS_URL = saved;
  await own?.stop();
});

describe('useRedis', () => {
  it('connects to REDIS_URL without spawning anything', async () => {
    own = await startRedis();
    process.env.REDIS_URL = own.url;
    const before = liveCount();
    const target = await useRedis();
    expect(target.external).toBe(true);
    expect(target.host).toBe('127.0.0.1');
    expect(target.port).toBe(own.port);
    expect(liveCount()).toBe(before);
    const client = target.client();
    try {
      await client.set('via-url', 'yes');
      const direct = own.client();
      expect(await direct.get('via-url')).toBe('yes');
      direct.disconnect();
    } finally {
      client.disconnect();
    }
  });

  it('spawns one server per process when REDIS_URL is unset, and reuses it', async () => {
    delete process.env.REDIS_URL;
    const [first, second] = await Promise.all([useRedis(), useRedis()]);
    const third = await useRedis();
    if (first.external || second.external || third.external) throw new Error('expected a spawned server');
    expect(second.server).toBe(first.server);
    expect(third.server).toBe(first.server);
    expect(first.port).not.toBe(own?.port);
    expect(first.server.running).toBe(true);
    const client = first.client();
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });
});
