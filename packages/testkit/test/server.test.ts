import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { findServerBinary, freePort, isProcessAlive, startRedis, type RedisServer } from '../src/index.js';
import { baseArgs, launchServer } from '../src/server.js';

const started: RedisServer[] = [];
const clients: Redis[] = [];

async function start(...args: Parameters<typeof startRedis>): Promise<RedisServer> {
  const server = await startRedis(...args);
  started.push(server);
  return server;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

describe('startRedis', () => {
  it('spawns a real server on a free loopback port that answers PING, SET and GET', async () => {
    const server = await start();
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).not.toBe(6379);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(server.running).toBe(true);
    expect(existsSync(server.dir)).toBe(true);

    const client = server.client();
    expect(await client.ping()).toBe('PONG');
    expect(await client.set('greeting', 'hello')).toBe('OK');
    expect(await client.get('greeting')).toBe('hello');
    // The process behind the port is the one we spawned, not some other server.
    expect(await client.info('server')).toContain(`process_id:${server.pid}`);

    // Testkit clients skip CLIENT SETINFO, which Redis < 7.2 would count as an error reply.
    expect(await client.info('errorstats')).not.toMatch(/errorstat_/);

    const fresh = new Redis(server.url);
    clients.push(fresh);
    expect(await fresh.get('greeting')).toBe('hello');
  });

  it('stop() ends the process and removes the temp dir', async () => {
    const server = await start();
    const { pid, dir } = server;
    expect(isProcessAlive(pid)).toBe(true);
    await server.stop();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }) as Error);
    expect(existsSync(dir)).toBe(false);
    expect(server.running).toBe(false);
    await server.stop(); // idempotent
  });

  it('gives two servers two different ports and dirs', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    expect(a.port).not.toBe(b.port);
    expect(a.dir).not.toBe(b.dir);
  });

  it('keeps AOF data across a SIGKILL crash and restart on the same port', async () => {
    const server = await start({ persistence: 'aof' });
    const { port, pid: before } = server;
    const client = server.client();
    await client.set('survivor', '42');
    await server.kill();
    expect(server.running).toBe(false);
    expect(isProcessAlive(before)).toBe(false);
    expect(existsSync(server.dir)).toBe(true);

    await server.restart();
    expect(server.port).toBe(port);
    expect(server.pid).not.toBe(before);
    expect(server.running).toBe(true);
    // The old client reconnects by itself to the restarted server.
    expect(await client.get('survivor')).toBe('42');
  });

  it('restart() of a running server shuts it down gracefully and keeps AOF data', async () => {
    const server = await start({ persistence: 'aof' });
    const before = server.pid;
    const client = server.client();
    await client.set('kept', 'yes');
    await server.restart();
    expect(isProcessAlive(before)).toBe(false);
    expect(server.pid).not.toBe(before);
    expect(await client.get('kept')).toBe('yes');
  });

  it('moves to a fresh port when another server already holds the chosen one', async () => {
    const squatter = await start();
    const offered: number[] = [];
    const server = await launchServer({
      binary: findServerBinary(),
      password: undefined,
      readyTimeoutMs: 5_000,
      // First offer the squatter's port: our server fails to bind while the squatter answers PING,
      // which must not be mistaken for our own server being ready.
      pickPort: async () => {
        const port = offered.length === 0 ? squatter.port : await freePort();
        offered.push(port);
        return port;
      },
      buildArgs: (port, dir) => baseArgs(port, dir, 'none', undefined),
    });
    started.push(server);
    expect(offered).toHaveLength(2);
    expect(server.port).toBe(offered[1]);
    expect(await server.client().info('server')).toContain(`process_id:${server.pid}`);
    expect(squatter.running).toBe(true);
  });

  it('loses data across a crash when persistence is none', async () => {
    const server = await start();
    const client = server.client();
    await client.set('ephemeral', '1');
    await server.kill('SIGKILL');
    await server.restart();
    expect(await client.get('ephemeral')).toBeNull();
  });

  it('passes extra args to the server', async () => {
    const server = await start({ args: ['--maxmemory', '10mb'] });
    const client = server.client();
    expect(await client.config('GET', 'maxmemory')).toEqual(['maxmemory', String(10 * 1024 * 1024)]);
  });

  it('supports ACL users given as args', async () => {
    const server = await start({ args: ['--user', 'alice', 'on', '>pw', '~a:*', '+get', '+set'] });
    // ioredis's ready check runs INFO, which alice may not; without this it logs a warning and skips it.
    const alice = server.client({ username: 'alice', password: 'pw', enableReadyCheck: false });
    expect(await alice.set('a:1', 'x')).toBe('OK');
    expect(await alice.get('a:1')).toBe('x');
    await expect(alice.set('b:1', 'x')).rejects.toThrow(/^NOPERM/);
  });

  it('requires the password when one is set, and its url and client carry it', async () => {
    const server = await start({ password: 's3cret p@ss' });
    expect(server.url).toBe(`redis://:${encodeURIComponent('s3cret p@ss')}@127.0.0.1:${server.port}`);
    expect(await server.client().ping()).toBe('PONG');
    const viaUrl = new Redis(server.url);
    clients.push(viaUrl);
    expect(await viaUrl.ping()).toBe('PONG');
    const anonymous = new Redis({ host: server.host, port: server.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    clients.push(anonymous);
    // ioredis 6 rejects connect() with a generic "Connection is closed."; the server's NOAUTH reply
    // to HELLO arrives as an 'error' event.
    const errors: string[] = [];
    anonymous.on('error', (error: Error) => errors.push(error.message));
    await expect(anonymous.connect()).rejects.toThrow();
    expect(errors.join('\n')).toMatch(/NOAUTH/);
  });

  it('fails with the log tail when the server rejects its arguments', async () => {
    await expect(startRedis({ args: ['--no-such-option', 'x'] })).rejects.toThrow(/exited during startup[\s\S]*no-such-option/i);
  });
});
