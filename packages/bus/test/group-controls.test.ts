/**
 * Group controls (pause, resume, reset, delete), the in-progress signal and the redelivery backoff,
 * as JetStream users know them, against a real server.
 */
import { InvalidArgumentError, ServerError, queueKeys, type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupConsumer, type GroupEntry, type GroupHandler, type Stream } from '../src/index.js';
import { connect, sleep, until } from './helpers.js';

let conn: Connection;
const consumers: GroupConsumer[] = [];

beforeAll(async () => {
  conn = await connect();
});
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await conn.close();
});

async function fresh(): Promise<Stream> {
  return (await Bus.open({ connection: conn })).stream(uniqueName('gc'));
}

async function start(stream: Stream, handler: GroupHandler, options: Partial<Parameters<Stream['consume']>[2]> = {}): Promise<GroupConsumer> {
  const c = await stream.consume('g', handler, { start: 'head', consumer: 'c1', beatMs: 50, ...options });
  consumers.push(c);
  return c;
}

/**
 * How many HEXISTS the server has run: a consumer's pause check is one a round of its loop, and
 * nothing else in these tests sends it between a baseline and the wait below.
 */
async function pauseChecks(): Promise<number> {
  return Number(/cmdstat_hexists:calls=(\d+)/.exec(String(await conn.command('INFO', 'commandstats')))?.[1] ?? 0);
}

/**
 * Waits until the consumers made `more` pause checks after `baseline`: any check counted then ran
 * after everything sent before the baseline, so it saw the group as it stands.
 */
async function pauseChecksAfter(baseline: number, more: number): Promise<void> {
  await until(async () => (await pauseChecks()) >= baseline + more);
}

const pendingCount = async (stream: Stream): Promise<number> => Number(((await conn.command('XPENDING', stream.key, 'g')) as unknown[])[0]);

describe('pause and resume', () => {
  it('a paused group delivers nothing to its consumers, loses nothing, and picks up on resume', async () => {
    const stream = await fresh();
    const seen: string[] = [];
    await start(stream, (e) => void seen.push(e.payload.n ?? ''));
    await stream.append({ n: '1' });
    await until(() => seen.length === 1);
    await stream.pauseGroup('g');
    expect(await stream.isGroupPaused('g')).toBe(true);
    // The consumer heard the pause (its read in flight ended with its beat), then append while it holds.
    await pauseChecksAfter(await pauseChecks(), 1);
    await stream.appendBatch([{ n: '2' }, { n: '3' }]);
    // Two more rounds of its loop, each of which would have read the new entries.
    await pauseChecksAfter(await pauseChecks(), 2);
    expect(seen).toEqual(['1']);
    expect((await stream.lag('g'))[0]?.undelivered).toBe(2);
    expect(await stream.resumeGroup('g')).toBe(true);
    expect(await stream.resumeGroup('g')).toBe(false);
    await until(() => seen.length === 3);
    expect(seen).toEqual(['1', '2', '3']);
  });

  it('a consumer started on a paused group waits for the resume', async () => {
    const stream = await fresh();
    await stream.openGroup('g', 'head');
    await stream.pauseGroup('g');
    await stream.append({ n: '1' });
    const seen: string[] = [];
    const checks = await pauseChecks();
    await start(stream, (e) => void seen.push(e.payload.n ?? ''));
    await pauseChecksAfter(checks, 2);
    expect(seen).toEqual([]);
    await stream.resumeGroup('g');
    await until(() => seen.length === 1);
  });
});

describe('reset and delete', () => {
  it('reset replays from the head, from an entry, or skips to the end', async () => {
    const stream = await fresh();
    const [a, b] = await stream.appendBatch([{ n: 'a' }, { n: 'b' }, { n: 'c' }]);
    const seen: string[] = [];
    const c = await start(stream, (e) => void seen.push(e.payload.n ?? ''));
    await until(() => seen.length === 3);
    await c.close();
    await stream.resetGroup('g', 'head');
    expect((await stream.lag('g'))[0]?.undelivered).toBe(3);
    await stream.resetGroup('g', { after: a as EvtId });
    expect((await stream.lag('g'))[0]?.undelivered).toBe(2);
    await stream.resetGroup('g', { after: b as EvtId });
    const again: string[] = [];
    await start(stream, (e) => void again.push(e.payload.n ?? ''), { consumer: 'c2' });
    await until(() => again.length === 1);
    expect(again).toEqual(['c']);
    await stream.resetGroup('g', 'new');
    expect((await stream.lag('g'))[0]?.undelivered).toBe(0);
    await expect(stream.resetGroup('nope', 'head')).rejects.toBeInstanceOf(ServerError);
    await expect(stream.resetGroup('g', 'latest' as never)).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('delete removes the group, its pending list and its paused flag, and nothing else', async () => {
    const stream = await fresh();
    await stream.append({ n: '1' });
    await stream.openGroup('g', 'head');
    await stream.openGroup('other', 'head');
    await conn.command('XREADGROUP', 'GROUP', 'g', 'x', 'STREAMS', stream.key, '>');
    await stream.pauseGroup('g');
    expect(await stream.deleteGroup('g')).toBe(true);
    expect(await stream.deleteGroup('g')).toBe(false);
    expect((await stream.lag()).map((l) => l.group)).toEqual(['other']);
    expect(await conn.command('EXISTS', queueKeys(stream.queue).streamPart(stream.name, 'paused'))).toBe(0);
    expect(await stream.read()).toHaveLength(1);
    expect(await (await fresh()).deleteGroup('g')).toBe(false);
  });
});

describe('in progress', () => {
  it('a handler that reports progress keeps its entry from a peer’s idle claim; one that does not loses it', async () => {
    for (const report of [true, false]) {
      const stream = await fresh();
      await stream.append({ n: '1' });
      const held: GroupEntry[] = [];
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const byPeer: number[] = [];
      await start(
        stream,
        async (e) => {
          held.push(e);
          const beat = setInterval(() => void (report ? e.inProgress() : undefined), 100);
          await released;
          clearInterval(beat);
        },
        { minIdleMs: 400 },
      );
      await until(() => held.length === 1);
      await start(stream, (e) => void byPeer.push(e.attempts), { consumer: 'peer', minIdleMs: 400 });
      await sleep(1200);
      expect(byPeer).toEqual(report ? [] : [2]);
      release();
      await until(async () => (await pendingCount(stream)) === 0);
      // Settled: the entry is no longer held by anyone.
      expect(await held[0]?.inProgress()).toBe(false);
      await Promise.all(consumers.splice(0).map((c) => c.close()));
    }
  });
});

describe('redelivery backoff', () => {
  it('the n-th redelivery waits backoff[n - 1], the last delay repeating, well before minIdleMs', async () => {
    const stream = await fresh();
    await stream.append({ n: '1' });
    const at: number[] = [];
    await start(
      stream,
      () => {
        at.push(Date.now());
        throw new Error('not yet');
      },
      { minIdleMs: 60_000, backoff: [100, 400], beatMs: 20 },
    );
    await until(() => at.length >= 4, 10_000);
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[1]).toBeGreaterThanOrEqual(400);
    expect(gaps[2]).toBeGreaterThanOrEqual(400);
    // Without the backoff, the first redelivery would wait minIdleMs (60 s, past the wait above).
    expect(gaps[0]).toBeLessThan(15_000);
  });

  it('refuses a delay over minIdleMs, or a list that is no list, before the group is created', async () => {
    const stream = await fresh();
    await expect(stream.consume('g', () => undefined, { start: 'head', consumer: 'c', minIdleMs: 1000, backoff: [2000] })).rejects.toThrow(/minIdleMs/);
    await expect(stream.consume('g', () => undefined, { start: 'head', consumer: 'c', backoff: [] })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(stream.consume('g', () => undefined, { start: 'head', consumer: 'c', backoff: [-1] })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await conn.command('EXISTS', stream.key)).toBe(0);
  });
});
