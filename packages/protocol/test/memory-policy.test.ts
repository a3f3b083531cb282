/**
 * A server that may evict keys can lose jobs, so the connector reads `maxmemory-policy` at connect
 * and refuses (or warns about) anything but `noeviction`; a server at its `maxmemory` refuses writes
 * with a typed error that says nothing ran.
 */
import { rejection, startRedis, waitFor, type RedisServer } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ConnectionLostError,
  Connection,
  EvictionPolicyError,
  mapReplyError,
  mintId,
  OutOfMemoryError,
  PermissionError,
  queueKeys,
  ServerError,
  scripts,
} from './support.js';
import type { EchoError } from './support.js';

function reply(message: string): Error {
  const error = new Error(message);
  error.name = 'ReplyError';
  return error;
}

describe('memory errors in the registry', () => {
  it('maps an OOM reply, bare or from inside a script, to OutOfMemoryError', () => {
    for (const message of [
      "OOM command not allowed when used memory > 'maxmemory'.",
      "OOM command not allowed when used memory > 'maxmemory'. script: 129372d3bb170e9b6b90908b2783696cfda5b544, on @user_script:1.",
    ]) {
      const mapped = mapReplyError(reply(message));
      expect(mapped).toBeInstanceOf(OutOfMemoryError);
      expect(mapped).toBeInstanceOf(ServerError);
      expect(mapped instanceof OutOfMemoryError && mapped.code).toBe('out_of_memory');
    }
  });

  it('maps READONLY (a demoted primary) to a lost connection, so callers retry', () => {
    const mapped = mapReplyError(reply("READONLY You can't write against a read only replica."));
    expect(mapped).toBeInstanceOf(ConnectionLostError);
    expect(mapped instanceof ConnectionLostError && mapped.code).toBe('read_only_replica');
  });
});

describe('maxmemory-policy at connect', () => {
  let lru: RedisServer;
  beforeAll(async () => {
    lru = await startRedis({
      args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru', '--user', 'narrow', 'on', '>pw', '~*', '&*', '+@all', '-info'],
    });
  });
  afterAll(async () => {
    await lru.stop();
  });

  it('refuses a server that may evict keys, and says why', async () => {
    const error = await Connection.connect({ url: lru.url }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EvictionPolicyError);
    expect((error as EvictionPolicyError).policy).toBe('allkeys-lru');
    expect((error as Error).message).toMatch(/evict.*noeviction/s);
  });

  it('writes nothing when it refuses: the policy is read before the fence is claimed', async () => {
    const raw = lru.client();
    try {
      await raw.flushall();
      expect(await rejection(Connection.connect({ url: lru.url }))).toBeInstanceOf(EvictionPolicyError);
      expect(await raw.scan('0', 'MATCH', '*', 'COUNT', 1000)).toEqual(['0', []]);
    } finally {
      raw.disconnect();
    }
  });

  it('warns instead when told to, and connects', async () => {
    const warnings: EchoError[] = [];
    const conn = await Connection.connect({ url: lru.url, evictionPolicy: 'warn', onWarning: (w) => warnings.push(w) });
    try {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toBeInstanceOf(EvictionPolicyError);
      expect(await conn.command('PING')).toBe('PONG');
    } finally {
      await conn.close();
    }
  });

  it('connects without asking when the check is off', async () => {
    const warnings: EchoError[] = [];
    const conn = await Connection.connect({ url: lru.url, evictionPolicy: 'allow', onWarning: (w) => warnings.push(w) });
    await conn.close();
    expect(warnings).toEqual([]);
  });

  it('warns, and connects, when the ACL forbids INFO: the policy cannot be read', async () => {
    const warnings: EchoError[] = [];
    const conn = await Connection.connect({ url: lru.url, username: 'narrow', password: 'pw', onWarning: (w) => warnings.push(w) });
    await conn.close();
    expect(warnings.map((w) => w.code)).toEqual(['eviction_policy_unknown']);
    expect(warnings[0]?.cause).toBeInstanceOf(PermissionError);
  });

  it('refuses nothing on a noeviction server', async () => {
    const plain = await startRedis();
    try {
      const warnings: EchoError[] = [];
      const conn = await Connection.connect({ url: plain.url, onWarning: (w) => warnings.push(w) });
      await conn.close();
      expect(warnings).toEqual([]);
    } finally {
      await plain.stop();
    }
  });
});

describe('maxmemory-policy after a reconnect', () => {
  let server: RedisServer;
  beforeEach(async () => {
    server = await startRedis();
  });
  afterEach(async () => {
    await server.stop();
  });

  /** Turns eviction on, then cuts every connection but the admin's own, so the connector reconnects. */
  async function evictAndCut(): Promise<void> {
    const admin = server.client();
    try {
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    } finally {
      admin.disconnect();
    }
  }

  it('refuses by default: the connection stops and every call fails with EvictionPolicyError', async () => {
    const conn = await Connection.connect({ url: server.url });
    try {
      expect(await conn.command('PING')).toBe('PONG');
      await evictAndCut();
      await waitFor(() => conn.status === 'fatal');
      const error = await rejection(conn.command('PING'));
      expect(error).toBeInstanceOf(EvictionPolicyError);
      expect((error as EvictionPolicyError).policy).toBe('allkeys-lru');
    } finally {
      await conn.close();
    }
  });

  it("warns once under 'warn' and carries on", async () => {
    const warnings: EchoError[] = [];
    const conn = await Connection.connect({ url: server.url, evictionPolicy: 'warn', onWarning: (w) => warnings.push(w) });
    try {
      expect(warnings).toEqual([]);
      await evictAndCut();
      await waitFor(() => warnings.length > 0);
      expect(warnings[0]).toBeInstanceOf(EvictionPolicyError);
      expect(await conn.command('PING')).toBe('PONG');
      // A duplicate (a blocking reader, a subscriber) does not say it again.
      const dup = await conn.duplicate();
      await dup.close();
      expect(warnings).toHaveLength(1);
    } finally {
      await conn.close();
    }
  });
});

describe('a server at maxmemory under noeviction', () => {
  it('refuses a transition with OutOfMemoryError and writes nothing of it', async () => {
    const server = await startRedis({ args: ['--maxmemory', '2mb', '--maxmemory-policy', 'noeviction'] });
    const conn = await Connection.connect({ url: server.url, strictKeys: true });
    try {
      const filler = 'x'.repeat(8_000);
      for (let i = 0; ; i++) {
        const [r] = await conn.pipeline([['SET', `filler:${i}`, filler]]);
        if (!r?.ok) break;
      }
      const k = queueKeys('oom');
      const id = mintId('JOB');
      const error = await conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'p']).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OutOfMemoryError);
      expect(await conn.command('EXISTS', k.job(id))).toBe(0);
      expect(await conn.command('ZCARD', k.pending)).toBe(0);
    } finally {
      await conn.close();
      await server.stop();
    }
  });
});
