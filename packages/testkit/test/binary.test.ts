import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findServerBinary, RedisServerNotFoundError, RedisStartError, startRedis } from '../src/index.js';

const HINT = 'Install it with `apt-get install -y redis-server` (or brew/your package manager) or set ECHO_REDIS_SERVER to the binary path, or set REDIS_URL to use an existing server.';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const scratch = mkdtempSync(join(tmpdir(), 'echo-binary-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('findServerBinary', () => {
  it('finds a server on PATH by default', () => {
    expect(findServerBinary()).toMatch(/\/(redis|valkey)-server$/);
  });

  it('honours ECHO_REDIS_SERVER as a path and as a command name', () => {
    const fake = join(scratch, 'my-redis');
    writeFileSync(fake, '#!/bin/sh\n');
    chmodSync(fake, 0o755);
    expect(findServerBinary({ ECHO_REDIS_SERVER: fake, PATH: '' })).toBe(fake);
    expect(findServerBinary({ ECHO_REDIS_SERVER: 'my-redis', PATH: scratch })).toBe(fake);
  });

  it('fails with the typed error and the install hint when ECHO_REDIS_SERVER names nothing', () => {
    const error = caught(() => findServerBinary({ ECHO_REDIS_SERVER: '/nonexistent/redis-server', PATH: process.env.PATH }));
    expect(error).toBeInstanceOf(RedisServerNotFoundError);
    expect((error as RedisServerNotFoundError).code).toBe('ECHO_REDIS_SERVER_NOT_FOUND');
    expect((error as Error).message).toContain('/nonexistent/redis-server');
    expect((error as Error).message).toContain(HINT);
  });

  it('fails the same way when PATH is empty and nothing is configured', () => {
    const error = caught(() => findServerBinary({ PATH: '' }));
    expect(error).toBeInstanceOf(RedisServerNotFoundError);
    expect((error as Error).message).toContain(HINT);
  });

  it('reads process.env by default, so startRedis reports a missing binary with the hint', async () => {
    const saved = { PATH: process.env.PATH, ECHO_REDIS_SERVER: process.env.ECHO_REDIS_SERVER };
    process.env.PATH = '';
    delete process.env.ECHO_REDIS_SERVER;
    try {
      expect(() => findServerBinary()).toThrow(RedisServerNotFoundError);
      process.env.PATH = saved.PATH;
      process.env.ECHO_REDIS_SERVER = join(scratch, 'missing-server');
      await expect(startRedis()).rejects.toThrow(HINT);
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.ECHO_REDIS_SERVER === undefined) delete process.env.ECHO_REDIS_SERVER;
      else process.env.ECHO_REDIS_SERVER = saved.ECHO_REDIS_SERVER;
    }
  });

  it('reports a binary that cannot be spawned as a start error', async () => {
    await expect(startRedis({ binary: join(scratch, 'not-there') })).rejects.toThrow(RedisStartError);
  });
});
