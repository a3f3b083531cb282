import { startLinkProxy, startRedis, uniqueName, type LinkProxy, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { blockAllowanceMs } from '../src/connector/liveness.js';
import { noteLastReply } from '../src/errors/connection.js';
import { Connection, ConnectionLostError, InvalidArgumentError, OutageReport, reads } from './support.js';

describe('blockAllowanceMs', () => {
  it.each([
    ['GET', ['k'], 0],
    ['EVALSHA', ['abc', 1, 'k'], 0],
    ['BLPOP', ['k', '1.500'], 1500],
    ['BLPOP', ['k', '0'], Infinity],
    ['blmove', ['a', 'b', 'LEFT', 'RIGHT', '2'], 2000],
    ['BLMPOP', ['3', '1', 'k', 'LEFT'], 3000],
    ['XREAD', ['COUNT', '10', 'BLOCK', '250', 'STREAMS', 's', '$'], 250],
    ['XREADGROUP', ['GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', 's', '>'], 0],
    ['XREADGROUP', ['GROUP', 'g', 'c', 'block', '0', 'STREAMS', 's', '>'], Infinity],
    ['WAIT', ['1', '800'], 800],
    ['WAITAOF', ['1', '0', '900'], 900],
  ] as const)('%s %j may block %d ms', (name, args, expected) => {
    expect(blockAllowanceMs(name, args)).toBe(expected);
  });
});

describe('OutageReport dates an outage from the last reply', () => {
  it('starts at the cause’s lastReplyAt and lengthens the duration by the gap', () => {
    const cause = new ConnectionLostError('no reply');
    noteLastReply(cause, 10_000);
    const report = new OutageReport(13_000, 2_000, 4, false, { cause });
    expect(report.startedAt).toBe(10_000);
    expect(report.durationMs).toBe(5_000);
    expect(report.message).toContain('5.0 s');
  });

  it('keeps the first error’s time when the cause knows no earlier reply', () => {
    const report = new OutageReport(13_000, 2_000, 1, true, { cause: new ConnectionLostError() });
    expect([report.startedAt, report.durationMs]).toEqual([13_000, 2_000]);
  });
});

describe('liveness on a half-open link', () => {
  let server: RedisServer;
  let proxy: LinkProxy;

  beforeAll(async () => {
    server = await startRedis();
    proxy = await startLinkProxy({ target: server });
  });
  afterAll(async () => {
    await proxy.close();
    await server.stop();
  });

  it('refuses a negative or fractional replyTimeoutMs', async () => {
    await expect(Connection.connect({ port: server.port, replyTimeoutMs: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(Connection.connect({ port: server.port, replyTimeoutMs: 1.5 })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('fails a call whose reply never comes within the timeout, dated from the last reply, then reconnects after the heal', async () => {
    const conn = await Connection.connect({ host: proxy.host, port: proxy.port, replyTimeoutMs: 800 });
    try {
      const key = uniqueName('live');
      await conn.command('SET', key, 'before');
      proxy.blackhole();
      const silentFrom = Date.now();
      const error = await conn.command('SET', key, 'during').then(
        () => undefined,
        (e: unknown) => e,
      );
      const detectedAfter = Date.now() - silentFrom;
      expect(error).toBeInstanceOf(ConnectionLostError);
      expect((error as Error).message).toMatch(/presumed dead/);
      // Not before the timeout; after it, within ten times the quiet figure (the timeout plus two
      // 200 ms watch ticks): what the bound catches is a call that waits on a dead link for ever.
      expect(detectedAfter).toBeGreaterThanOrEqual(750);
      expect(detectedAfter).toBeLessThan(12_000);
      const lastReplyAt = (error as ConnectionLostError).lastReplyAt;
      expect(lastReplyAt).toBeDefined();
      expect(lastReplyAt).toBeLessThanOrEqual(silentFrom);
      // The half-open socket ran the write: the server has it although the caller heard nothing.
      expect(await server.client().get(key)).toBe('during');
      proxy.release();
      expect(await conn.command('GET', key)).toBe('during');
      expect(conn.stats().reconnects).toBeGreaterThanOrEqual(1);
    } finally {
      await conn.close({ immediate: true });
      proxy.release();
    }
  });

  it('lets a blocking call wait out its own timeout on a live link, and bounds it on a dead one', async () => {
    const conn = await Connection.connect({ host: proxy.host, port: proxy.port, replyTimeoutMs: 400 });
    try {
      const key = uniqueName('pop');
      const t0 = Date.now();
      expect(await reads.sendRead(conn, reads.queue.wake({ key, timeoutMs: 1_200 }))).toBeNull();
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_100);
      proxy.blackhole();
      const t1 = Date.now();
      await expect(reads.sendRead(conn, reads.queue.wake({ key, timeoutMs: 600 }))).rejects.toBeInstanceOf(ConnectionLostError);
      expect(Date.now() - t1).toBeGreaterThanOrEqual(950);
      // Ten times the quiet figure (its own 600 ms plus the 400 ms reply timeout): a bounded wait, not a hang.
      expect(Date.now() - t1).toBeLessThan(10_000);
    } finally {
      proxy.release();
      await conn.close({ immediate: true });
    }
  });

  it('times silence on the host clock: an application moving a faked Date a day on leaves a live blocking call alone', async () => {
    const conn = await Connection.connect({ port: server.port, replyTimeoutMs: 400 });
    try {
      const key = uniqueName('faked');
      const waiting = reads.sendRead(conn, reads.queue.wake({ key, timeoutMs: 2_000 }));
      // Real time for the watch to date the waiting call (it ticks every 100 ms at this timeout).
      await new Promise((resolve) => setTimeout(resolve, 700));
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 86_400_000);
      // On the wall clock the call would have waited a day: the watch dropped the link (old behaviour).
      expect(await waiting).toBeNull();
    } finally {
      vi.useRealTimers();
      await conn.close({ immediate: true });
    }
  });

  it('with replyTimeoutMs 0, the watch is off: a call on a blackholed link is still waiting 1.5 s later', async () => {
    const conn = await Connection.connect({ host: proxy.host, port: proxy.port, replyTimeoutMs: 0 });
    try {
      proxy.blackhole();
      let settled = false;
      const pending = conn.command('PING').finally(() => (settled = true));
      pending.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(settled).toBe(false);
    } finally {
      await conn.close({ immediate: true });
      proxy.release();
    }
  });
});
