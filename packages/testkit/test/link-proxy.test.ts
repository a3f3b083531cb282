import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLinkProxy, startRedis, waitFor, type LinkProxy, type RedisServer } from '../src/index.js';

let primary: RedisServer;
let replica: RedisServer;
let proxy: LinkProxy;
let writer: Redis;
let reader: Redis;

beforeAll(async () => {
  primary = await startRedis({ args: ['--repl-diskless-sync-delay', '0'] });
  proxy = await startLinkProxy({ target: primary });
  replica = await startRedis({ args: ['--replicaof', proxy.host, String(proxy.port)] });
  writer = primary.client();
  reader = replica.client();
  await waitFor(async () => (await reader.info('replication')).includes('master_link_status:up'), { what: 'replica linked', timeoutMs: 10_000 });
}, 60_000);

afterAll(async () => {
  await proxy.close();
  await replica.stop();
  await primary.stop();
});

describe('startLinkProxy between a primary and its replica', () => {
  it('holds the replication stream: acknowledged writes stay off the replica and WAIT counts no replica, until released', async () => {
    await writer.set('before', '1');
    expect(await writer.call('WAIT', '1', '2000')).toBe(1);
    proxy.hold();
    await writer.set('held', '1');
    expect(await writer.call('WAIT', '1', '300')).toBe(0);
    expect(proxy.heldBytes).toBeGreaterThan(0);
    expect(await reader.get('held')).toBeNull();
    proxy.release();
    expect(proxy.heldBytes).toBe(0);
    expect(await writer.call('WAIT', '1', '2000')).toBe(1);
    expect(await reader.get('held')).toBe('1');
  });

  it('lags the stream: WAIT 1 returns only after the delay', async () => {
    proxy.lag(150);
    const t0 = performance.now();
    await writer.set('lagged', '1');
    expect(await writer.call('WAIT', '1', '5000')).toBe(1);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    proxy.release();
    expect(await reader.get('lagged')).toBe('1');
  });

  it('cut drops the link with what it held; the replica reconnects and resyncs', async () => {
    proxy.hold();
    await writer.set('lost-with-link', '1');
    proxy.cut();
    expect(proxy.connections).toBe(0);
    await waitFor(async () => (await writer.call('WAIT', '1', '200')) === 1, { what: 'replica back', timeoutMs: 10_000 });
    expect(await reader.get('lost-with-link')).toBe('1');
  });
});

describe('startLinkProxy between a client and a server', () => {
  let server: RedisServer;
  let front: LinkProxy;
  let direct: Redis;

  beforeAll(async () => {
    server = await startRedis();
    front = await startLinkProxy({ target: server });
    direct = server.client();
  });
  afterAll(async () => {
    await front.close();
    await server.stop();
  });

  /** A client through the proxy that never retries and fails a call after `ms`. */
  function through(ms: number): Redis {
    return server.client({ port: front.port, commandTimeout: ms, maxRetriesPerRequest: 0, retryStrategy: () => null });
  }

  it('blackhole: the command runs on the server but its reply never comes back; release lets new replies through', async () => {
    const client = through(400);
    await client.ping();
    front.blackhole();
    await expect(client.set('bh', '1')).rejects.toThrow(/timed out/);
    expect(await direct.get('bh')).toBe('1');
    let closed = false;
    client.once('close', () => (closed = true));
    front.release();
    // The link that lost a reply ends at the heal rather than resuming out of step; new ones work.
    await waitFor(() => closed, { timeoutMs: 2_000 });
    client.disconnect();
    const fresh = through(2_000);
    expect(await fresh.get('bh')).toBe('1');
    fresh.disconnect();
  });

  it('partition: the command never reaches the server', async () => {
    const client = through(400);
    await client.ping();
    front.partition();
    await expect(client.set('cut-off', '1')).rejects.toThrow(/timed out/);
    expect(await direct.get('cut-off')).toBeNull();
    expect(front.mode.kind).toBe('partition');
    front.release();
    client.disconnect();
  });
});

describe('startLinkProxy keeps the byte order through mode changes', () => {
  let server: RedisServer;
  let front: LinkProxy;

  beforeAll(async () => {
    server = await startRedis();
    front = await startLinkProxy({ target: server });
  });
  afterAll(async () => {
    await front.close();
    await server.stop();
  });

  it('a reply lagged before a release is not overtaken by one sent after it', async () => {
    const client = server.client({ port: front.port });
    try {
      await client.ping();
      front.lag(400);
      const first = client.echo('first');
      await new Promise((resolve) => setTimeout(resolve, 100));
      front.release();
      const second = client.echo('second');
      // Out of order, the driver would hand 'second' to the first call.
      expect(await Promise.all([first, second])).toEqual(['first', 'second']);
      front.lag(300);
      const third = client.echo('third');
      await new Promise((resolve) => setTimeout(resolve, 50));
      front.hold();
      const fourth = client.echo('fourth');
      front.release();
      expect(await Promise.all([third, fourth])).toEqual(['third', 'fourth']);
    } finally {
      client.disconnect();
    }
  });
});
