import { startRedis, useRedis, uniqueName, waitFor, type RedisServer, type RedisTarget } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectError,
  Connection,
  ConnectionClosedError,
  CrossSlotError,
  GoneError,
  InvalidArgumentError,
  KeyLawError,
  KindError,
  ServerError,
  ShaMismatchError,
  StaleError,
  defineScript,
  mintId,
  queueKeys,
  scripts,
  type Script,
} from './support.js';

let target: RedisTarget;
let conn: Connection;

beforeAll(async () => {
  target = await useRedis();
  conn = await Connection.connect({ url: target.url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

function enqueueCall(q: string, id = mintId('JOB'), payload = 'p'): [Script, string[], string[]] {
  const k = queueKeys(q);
  return [scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, payload]];
}

describe('EVALSHA dispatch', () => {
  it('runs a transition as one EVALSHA and loads it once after NOSCRIPT', async () => {
    const q = uniqueName('disp');
    await conn.command('SCRIPT', 'FLUSH');
    const before = conn.stats();
    expect(await conn.run(...enqueueCall(q))).toBe(1);
    const mid = conn.stats();
    expect(mid.scriptLoads - before.scriptLoads).toBe(1);
    expect(mid.evalshaCalls - before.evalshaCalls).toBe(2);
    expect(await conn.run(...enqueueCall(q))).toBe(1);
    const after = conn.stats();
    expect(after.scriptLoads).toBe(mid.scriptLoads);
    expect(after.evalshaCalls - mid.evalshaCalls).toBe(1);
    expect(await conn.command('ZCARD', queueKeys(q).pending)).toBe(2);
  });

  it('maps an error on the resend after NOSCRIPT exactly as on a warm call', async () => {
    const q = uniqueName('cold');
    const k = queueKeys(q);
    const id = mintId('JOB');
    await conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'x']);
    const complete = (token: string) =>
      conn.run(
        scripts().complete,
        [k.active, k.pending, k.schedule, k.dead, k.job(id), k.metricsCompleted, k.gactive, k.glimit, k.ring, k.wake, k.paused, k.laneRoot, k.jobRoot, k.events, k.meta, k.completed, k.dedupRoot, k.journal, k.outcomes],
        [id, token, '', '', id, ''],
      );
    await conn.command('SCRIPT', 'FLUSH');
    const cold = await complete('99').catch((e: unknown) => e);
    const warm = await complete('99').catch((e: unknown) => e);
    expect(cold).toBeInstanceOf(StaleError);
    expect(warm).toBeInstanceOf(StaleError);
    expect((cold as StaleError).detail).toBe('complete token mismatch');
    expect((cold as StaleError).message).toBe((warm as StaleError).message);
    const gone = await complete('0').then(() => complete('0')).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(GoneError);
  });

  it('maps EMQKIND to KindError and writes nothing', async () => {
    const q = uniqueName('kind');
    const k = queueKeys(q);
    const ord = mintId('ORD');
    const error = await conn.run(scripts().enqueue, [k.job(ord), k.pending, k.events, k.meta, k.journal], [ord, 'x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KindError);
    expect(await conn.command('EXISTS', k.job(ord))).toBe(0);
  });

  it('fails hard when SCRIPT LOAD returns a digest other than the precomputed one', async () => {
    const real = scripts().queue_pause;
    const forged: Script = { ...real, sha: '0'.repeat(40) };
    // The strict twin rehashes its own source, so the forged digest only reaches the wire unwrapped.
    const plain = await Connection.connect({ url: target.url, strictKeys: false });
    try {
      await expect(plain.run(forged, [queueKeys(uniqueName('sha')).meta], [])).rejects.toBeInstanceOf(ShaMismatchError);
    } finally {
      await plain.close();
    }
  });

  it('refuses keys on different slots before sending anything', async () => {
    const before = conn.stats().commands;
    const a = queueKeys(uniqueName('a'));
    const b = queueKeys(uniqueName('b'));
    const id = mintId('JOB');
    await expect(conn.run(scripts().enqueue, [a.job(id), b.pending, b.events, b.meta, b.journal], [id, 'x'])).rejects.toBeInstanceOf(CrossSlotError);
    expect(conn.stats().commands).toBe(before);
  });

  it('refuses a call whose key or argument count breaks the header', async () => {
    const k = queueKeys(uniqueName('shape'));
    await expect(conn.run(scripts().queue_pause, [k.meta, k.pending], [])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(conn.run(scripts().enqueue, [k.job(mintId('JOB')), k.pending, k.events, k.meta, k.journal], ['only-one'])).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('maps each member of a pipelined batch on its own', async () => {
    const q = uniqueName('batch');
    const k = queueKeys(q);
    const good = mintId('JOB');
    const bad = mintId('USR');
    await conn.command('SCRIPT', 'FLUSH');
    const results = await conn.runBatch([
      { script: scripts().enqueue, keys: [k.job(good), k.pending, k.events, k.meta, k.journal], args: [good, 'a'] },
      { script: scripts().enqueue, keys: [k.job(bad), k.pending, k.events, k.meta, k.journal], args: [bad, 'b'] },
      { script: scripts().enqueue, keys: [k.job(good), k.pending, k.events, k.meta, k.journal], args: [good, 'c'] },
    ]);
    expect(results[0]).toEqual({ ok: true, value: 1 });
    expect(results[1]?.ok === false && results[1].error).toBeInstanceOf(KindError);
    expect(results[2]).toEqual({ ok: true, value: 0 });
    expect(await conn.runBatch([])).toEqual([]);
  });

  it('passes a server error through as ServerError', async () => {
    const k = queueKeys(uniqueName('wrongtype'));
    await conn.command('SET', k.pending, 'not a zset');
    const id = mintId('JOB');
    const error = await conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
  });
});

describe('strict key law at run time', () => {
  const rogue = (body: string, keys: string[]) =>
    defineScript({
      origin: 'rogue',
      source: ['-- @script rogue', '-- @purpose Touches keys it may not.', ...keys.map((k) => `-- @key ${k} x`), '-- @args any anything', '-- @returns 1', '-- @include core', body].join('\n'),
    });

  it('refuses a key built from ARGV', async () => {
    const k = queueKeys(uniqueName('law'));
    const s = rogue("return redis.call('GET', 'emq:{" + k.queue + "}:' .. ARGV[1])", ['meta']);
    await expect(conn.run(s, [k.meta], ['pending'])).rejects.toBeInstanceOf(KeyLawError);
  });

  it('accepts a rooted key with a checked id and refuses one with an unchecked suffix', async () => {
    const k = queueKeys(uniqueName('law'));
    const id = mintId('JOB');
    const ok = rogue("return redis.call('EXISTS', jkey(KEYS[1], ARGV[1], ':logs'))", ['jobroot']);
    expect(await conn.run(ok, [k.jobRoot], [id])).toBe(0);
    const bad = rogue("return redis.call('EXISTS', KEYS[1] .. ARGV[1] .. ':secret')", ['jobroot']);
    await expect(conn.run(bad, [k.jobRoot], [id])).rejects.toBeInstanceOf(KeyLawError);
  });
});

describe('connection lifecycle', () => {
  it('fails every call after close with ConnectionClosedError', async () => {
    const c = await Connection.connect(target.url);
    await c.close();
    await c.close();
    await expect(c.command('PING')).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(c.run(...enqueueCall(uniqueName('closed')))).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('gives a typed error, not a hang, when nothing listens', async () => {
    const started = Date.now();
    const error = await Connection.connect({ host: '127.0.0.1', port: 1, connectTimeoutMs: 1500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    // A hang runs to the test's timeout; ten times the connect timeout leaves a loaded machine room.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('refuses a malformed URL before opening a socket', async () => {
    await expect(Connection.connect('http://localhost')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(Connection.connect({ port: 70000 })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});

describe('reconnect', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('resumes by itself after its socket is killed, re-fencing first', async () => {
    const c = await Connection.connect({ url: server.url, name: 'echo-reconnect' });
    const admin = server.client();
    try {
      await admin.call('CLIENT', 'KILL', 'SKIPME', 'yes', 'TYPE', 'normal');
      await waitFor(() => c.stats().reconnects === 1, { what: 'the reconnect', timeoutMs: 10_000 });
      expect(await c.command('PING')).toBe('PONG');
      expect(c.stats().reconnects).toBe(1);
      expect(c.stats().fences).toBe(2);
    } finally {
      admin.disconnect();
      await c.close();
    }
  });

  it('re-issues its subscriptions after a reconnect, once the fence has passed', async () => {
    const sub = await Connection.connect({ url: server.url, name: 'echo-sub' });
    const admin = server.client();
    const got: string[] = [];
    try {
      await sub.subscribe(['emq:{subq}:events'], { onMessage: ({ channel, payload }) => got.push(`${channel}:${payload}`) });
      await admin.publish('emq:{subq}:events', 'one');
      await waitFor(() => got.length === 1, { what: 'the first message' });
      await admin.call('CLIENT', 'KILL', 'SKIPME', 'yes', 'TYPE', 'pubsub');
      await waitFor(() => sub.stats().reconnects > 0, { what: 'the subscriber to reconnect', timeoutMs: 10_000 });
      // Published until heard: one sent before the resubscribe lands is lost, as pub/sub loses it.
      await waitFor(
        async () => {
          if (got.length >= 2) return true;
          await admin.publish('emq:{subq}:events', 'two');
          return false;
        },
        { what: 'a message after the reconnect', timeoutMs: 10_000, everyMs: 20 },
      );
      expect(got[0]).toBe('emq:{subq}:events:one');
      expect(got).toContain('emq:{subq}:events:two');
      expect(sub.stats().fences).toBe(2);
    } finally {
      admin.disconnect();
      await sub.close();
    }
  });
});
