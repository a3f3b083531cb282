/**
 * The outage mode against a real stopped server (SIGSTOP: the socket stays open and every call
 * stalls, the hardest kind of outage to notice), and coherence across a dropped connection.
 */
import { Connection, cacheLogKey } from '@echo/protocol/cache';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, L2UnavailableError, type NamespaceEvents } from '../src/index.js';
import { connect, sleep, tableName, until } from './helpers.js';

let server: RedisServer;
let conn: Connection;
let cache: Cache;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url, reconnectWaitMs: 5000 });
  cache = await Cache.open({ connection: conn });
});
afterAll(async () => {
  process.kill(server.pid, 'SIGCONT');
  await cache.close();
  await conn.close({ immediate: true });
  await server.stop();
});

describe('keyed namespaces: the outage mode', { timeout: 60_000 }, () => {
  it('with L2 stopped: hits still answer, grace and the factory stand in, deletes go locally first, the breaker opens and closes', async () => {
    // The breaker stays open long enough that a busy machine cannot half-open it before the
    // open-breaker call below is made. The L2 bound leaves a loaded machine room for the set-up
    // writes below (a 100 ms bound failed one of them on a loaded run, before the server was stopped),
    // and 'hot' stays fresh however long they take (with a 200 ms lifetime it was served from the
    // fallback on a loaded run, not as a hit).
    const ns = await cache.namespace<string>({ name: tableName('ko'), ttlMs: 60_000, graceMs: 60_000, outage: { l2TimeoutMs: 500, failures: 2, openMs: 2_000 } });
    const breaker: NamespaceEvents['breaker'][] = [];
    ns.on('breaker', (e) => breaker.push(e));
    await ns.set('hot', 'h');
    await ns.set('graced', 'g', { ttlMs: 1 });
    await ns.set('doomed', 'd');
    await sleep(5);
    process.kill(server.pid, 'SIGSTOP');
    try {
      expect(await ns.getEntry('hot')).toMatchObject({ value: 'h', source: 'hit' });
      expect(await ns.getOrSetEntry('graced', () => 'never')).toMatchObject({ value: 'g', source: 'fallback-l1' });
      expect(await ns.getOrSetEntry('cold', () => 'loaded')).toMatchObject({ value: 'loaded', source: 'fallback-fill' });
      await expect(ns.delete('doomed')).rejects.toThrow(L2UnavailableError);
      expect(ns.peek('doomed')).toBeUndefined();
      expect(ns.stats().breaker).toBe('open');
      // While open, calls do not go to L2 at all: one that did would meet the stopped server,
      // time out and count as an L2 error.
      const errorsWhileOpen = ns.stats().l2Errors;
      expect(await ns.getOrSetEntry('cold2', () => 'loaded2')).toMatchObject({ source: 'fallback-fill' });
      expect(ns.stats()).toMatchObject({ breaker: 'open', l2Errors: errorsWhileOpen });
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
    // Once openMs is out the probe goes to L2 and closes the breaker; the delete that failed is
    // visible as not done.
    await until(async () => (await ns.getEntry('doomed')) !== undefined, 10_000);
    expect(ns.stats()).toMatchObject({ breaker: 'closed', breakerOpens: 1 });
    expect(breaker.map((e) => e.state)).toEqual(['open', 'closed']);
    expect(ns.stats().l2Errors).toBeGreaterThanOrEqual(2);
  });

  it('with L2 stopped: pull and expire drop the local copy first and report L2UnavailableError; a skipped answer still reaches its caller', async () => {
    // Room for a loaded machine in the L2 bound, as above: the set-up writes meet it too.
    const ns = await cache.namespace<string>({ name: tableName('ko'), ttlMs: 60_000, outage: { l2TimeoutMs: 500, failures: 10, openMs: 300 } });
    await ns.set('p', 'p');
    await ns.set('e', 'e');
    process.kill(server.pid, 'SIGSTOP');
    try {
      await expect(ns.pull('p')).rejects.toThrow(L2UnavailableError);
      expect(ns.peek('p')).toBeUndefined();
      await expect(ns.expire('e')).rejects.toThrow(L2UnavailableError);
      expect(ns.peek('e')).toBeUndefined();
      const read = await ns.getOrSetEntry('s', (ctx) => {
        ctx.skip();
        return 'mine';
      });
      expect(read).toMatchObject({ value: 'mine', source: 'uncached' });
      expect(ns.peek('s')).toBeUndefined();
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
  });

  it('without the mode, an L2 error fails the call, and a delete still goes locally first', async () => {
    const ns = await cache.namespace<string>({ name: tableName('ko') });
    await ns.set('k', 'v');
    const dead = await Connection.connect({ url: server.url, reconnectWaitMs: 100 });
    const local = await Cache.open({ connection: dead });
    const other = await local.namespace<string>({ name: ns.name, coherence: false });
    expect(await other.get('k')).toBe('v');
    await dead.command('CLIENT', 'PAUSE', 300, 'ALL').catch(() => undefined);
    await dead.close({ immediate: true });
    await expect(other.delete('k')).rejects.toThrow();
    expect(other.peek('k')).toBeUndefined();
    await local.close();
  });
});

describe('keyed namespaces: coherence across a dropped connection', { timeout: 60_000 }, () => {
  it('the log reader resumes where it stopped: a write made while it was down is applied, L1 is not flushed', async () => {
    const name = tableName('kr');
    const a = await cache.namespace<string>({ name });
    const connB = await connect(server.url);
    const cacheB = await Cache.open({ connection: connB });
    const b = await cacheB.namespace<string>({ name });
    await a.set('k', 'one');
    await a.set('other', 'x');
    expect(await b.get('k')).toBe('one');
    expect(await b.get('other')).toBe('x');
    const list = String(await conn.command('CLIENT', 'LIST'));
    const id = /^id=(\d+) .* name=echo-cache-log-(\S+)/m.exec(list.split('\n').filter((l) => l.includes(`name=echo-cache-log-${name} `))[1] ?? '')?.[1];
    expect(id).toBeDefined();
    await conn.command('CLIENT', 'KILL', 'ID', id as string);
    await a.set('k', 'two');
    await until(() => b.peek('k') === undefined);
    expect(await b.get('k')).toBe('two');
    expect(b.peek('other')?.value).toBe('x');
    expect(b.stats()).toMatchObject({ flushes: 0 });
    await cacheB.close();
    await connB.close();
  });

  it('the log reader finds the log trimmed past where it stopped: L1 is flushed, then reads go on', async () => {
    const name = tableName('kg');
    const a = await cache.namespace<string>({ name });
    const connB = await connect(server.url);
    const cacheB = await Cache.open({ connection: connB });
    const b = await cacheB.namespace<string>({ name });
    await a.set('other', 'x');
    expect(await b.get('other')).toBe('x');
    const list = String(await conn.command('CLIENT', 'LIST'));
    const id = /^id=(\d+) /.exec(list.split('\n').filter((l) => l.includes(`name=echo-cache-log-${name} `))[1] ?? '')?.[1];
    expect(id).toBeDefined();
    // b's reader stays away until the write and the trim are done, however slow the machine: the
    // server takes no new connection meanwhile (those already open, a's included, carry on).
    const maxclients = (await conn.command('CONFIG', 'GET', 'maxclients')) as [string, string];
    await conn.command('CONFIG', 'SET', 'maxclients', '1');
    try {
      await conn.command('CLIENT', 'KILL', 'ID', id as string);
      // While b's reader is away: a write, then a trim that takes it.
      await a.set('k', 'two');
      await conn.command('XTRIM', cacheLogKey(name), 'MAXLEN', '0');
    } finally {
      await conn.command('CONFIG', 'SET', 'maxclients', maxclients[1]);
    }
    await until(() => b.stats().flushes === 1, 15_000);
    expect(b.peek('other')).toBeUndefined();
    expect(b.stats().log).toMatchObject({ gaps: 1 });
    // The reader goes on after the gap.
    await a.set('other', 'y');
    expect(await b.get('other')).toBe('y');
    await a.set('other', 'z');
    await until(() => b.peek('other') === undefined);
    await cacheB.close();
    await connB.close();
  });
  it('a burst past the log bound while the reader keeps up (one server-side step): the full batch it reads is checked, L1 is flushed', async () => {
    const name = tableName('kb');
    const a = await cache.namespace<string>({ name, logMaxLen: 512 });
    const connB = await connect(server.url);
    const cacheB = await Cache.open({ connection: connB });
    const b = await cacheB.namespace<string>({ name, logMaxLen: 512 });
    await a.set('other', 'x');
    expect(await b.get('other')).toBe('x');
    await until(() => b.stats().log?.read === 1);
    // 1,000 entries and the cache's own trim (MAXLEN ~ 512) in one script: b's reader, caught up and
    // blocked, is served once it ends, past a hole and with a full batch (released-lease entries
    // name a key nobody waits on, so only the hole can touch b's L1).
    await conn.command(
      'EVAL',
      "for i = 1, 1000 do redis.call('XADD', KEYS[1], 'MAXLEN', '~', '512', '*', 'v', '', 'o', 'r', 'k', 'nobody') end return 1",
      '1',
      cacheLogKey(name),
    );
    await until(() => b.stats().flushes === 1);
    expect(b.peek('other')).toBeUndefined();
    expect(b.stats().log).toMatchObject({ gaps: 1 });
    await cacheB.close();
    await connB.close();
  });
});
