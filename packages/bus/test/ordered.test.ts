/**
 * Ordered parallel consumption: entries that share the order field's value run one after another
 * in stream order across every consumer of the group (each on its own connection), different
 * values run at once, and a consumer that dies holding entries loses nothing and breaks no order.
 */
import { Connection, queueKeys } from '@echo/protocol/bus';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupConsumer, type GroupEntry, type Stream } from '../src/index.js';
import { sleep, until } from './helpers.js';

let conn: Connection;
const opened: Connection[] = [];
const consumers: GroupConsumer[] = [];

beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url });
});
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close()));
  await Promise.all(opened.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await conn.close();
});

/** The stream as another process sees it: a bus on a connection of its own. */
async function elsewhere(name: string): Promise<Stream> {
  const own = await Connection.connect({ url: (await useRedis()).url });
  opened.push(own);
  return (await Bus.open({ connection: own })).stream(name);
}

interface Event {
  readonly kind: 'start' | 'done';
  readonly acct: string;
  readonly seq: number;
  readonly by: string;
}

/** Records handler starts and ends; an entry `hang` picks does not end until `released`. */
function recorder(events: Event[], by: string, inFlight: { now: number; max: number }, hang?: (e: GroupEntry) => boolean, released?: Promise<void>) {
  return async (e: GroupEntry): Promise<void> => {
    const acct = e.payload.acct ?? '';
    const seq = Number(e.payload.seq);
    events.push({ kind: 'start', acct, seq, by });
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    try {
      if (hang?.(e) === true) await released;
      await sleep(Math.floor(Math.random() * 4));
    } finally {
      inFlight.now--;
    }
    events.push({ kind: 'done', acct, seq, by });
  };
}

/** Every start of an entry came after every earlier entry of its key was done. */
function orderBreaches(events: readonly Event[]): string[] {
  const done = new Map<string, Set<number>>();
  const breaches: string[] = [];
  for (const ev of events) {
    const set = done.get(ev.acct) ?? new Set<number>();
    done.set(ev.acct, set);
    if (ev.kind === 'done') set.add(ev.seq);
    else for (let s = 0; s < ev.seq; s++) if (!set.has(s)) breaches.push(`${ev.acct}#${ev.seq} started by ${ev.by} before ${ev.acct}#${s} was done`);
  }
  return breaches;
}

async function appendKeyed(stream: Stream, accounts: number, perAccount: number): Promise<void> {
  const records = [];
  for (let seq = 0; seq < perAccount; seq++) for (let a = 0; a < accounts; a++) records.push({ acct: `a${a}`, seq: String(seq) });
  await stream.appendBatch(records);
}

function doneCount(events: readonly Event[]): number {
  return new Set(events.filter((e) => e.kind === 'done').map((e) => `${e.acct}#${e.seq}`)).size;
}

describe('consume with orderBy', () => {
  it('keeps per-key order across three consumers on their own connections, and runs keys at once', async () => {
    const name = uniqueName('ord');
    const stream = await elsewhere(name);
    await appendKeyed(stream, 6, 25);
    const events: Event[] = [];
    const inFlight = { now: 0, max: 0 };
    for (const c of ['c1', 'c2', 'c3']) {
      const s = await elsewhere(name);
      consumers.push(await s.consume('g', recorder(events, c, inFlight), { start: 'head', consumer: c, orderBy: 'acct', concurrency: 4, count: 10, beatMs: 50 }));
    }
    await until(() => doneCount(events) === 150, 30_000);
    expect(orderBreaches(events)).toEqual([]);
    // Each key ran in stream order, and different keys overlapped.
    expect(inFlight.max).toBeGreaterThan(1);
    expect(new Set(events.map((e) => e.by)).size).toBeGreaterThan(1);
    await until(async () => Number(((await conn.command('XPENDING', stream.key, 'g')) as unknown[])[0]) === 0);
    // Done entries leave the order registry: only the group's watermark stays.
    expect(await conn.command('ZCARD', queueKeys(stream.queue).streamPart(name, 'order'))).toBe(1);
  });

  it('hands a dead consumer’s entries over in order: nothing lost, no key overtaken', async () => {
    const name = uniqueName('ord');
    const stream = await elsewhere(name);
    await appendKeyed(stream, 4, 10);
    const events: Event[] = [];
    const inFlight = { now: 0, max: 0 };
    const options = { start: 'head' as const, orderBy: 'acct', concurrency: 3, count: 8, beatMs: 50, minIdleMs: 400 };
    // The zombie takes the first read and hangs on a1#0: to the server it is a dead consumer.
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const zombie = await (await elsewhere(name)).consume('g', recorder(events, 'zombie', inFlight, (e) => e.payload.acct === 'a1', released), { ...options, consumer: 'zombie' });
    await until(() => events.some((e) => e.by === 'zombie' && e.acct === 'a1'));
    for (const c of ['c1', 'c2']) consumers.push(await (await elsewhere(name)).consume('g', recorder(events, c, inFlight), { ...options, consumer: c }));
    await until(() => doneCount(events) === 40, 30_000);
    expect(orderBreaches(events)).toEqual([]);
    // a1#0 was taken over (a second delivery) and ran before every later a1 entry.
    const a1 = events.filter((e) => e.acct === 'a1' && e.kind === 'start' && e.by !== 'zombie').map((e) => e.seq);
    expect(a1[0]).toBe(0);
    expect(a1).toEqual([...a1].sort((x, y) => x - y));
    release();
    await zombie.close();
  });

  it('replays in per-key order after a reset to the head: the registration follows the group', async () => {
    const name = uniqueName('ord');
    const stream = await elsewhere(name);
    await appendKeyed(stream, 3, 10);
    const options = { start: 'head' as const, orderBy: 'acct', concurrency: 3, count: 4, beatMs: 50 };
    for (const round of [1, 2]) {
      const events: Event[] = [];
      const inFlight = { now: 0, max: 0 };
      const running: GroupConsumer[] = [];
      for (const c of ['c1', 'c2']) running.push(await (await elsewhere(name)).consume('g', recorder(events, c, inFlight), { ...options, consumer: c }));
      await until(() => doneCount(events) === 30, 30_000);
      await Promise.all(running.map((c) => c.close()));
      expect(orderBreaches(events), `round ${round}`).toEqual([]);
      await stream.resetGroup('g', 'head');
    }
    const marks = (await conn.command('ZRANGE', queueKeys(stream.queue).streamPart(name, 'order'), '0', '-1')) as string[];
    expect(marks).toEqual([`g\u0001${'0'.repeat(20)}-${'0'.repeat(20)}`]);
  });

  it('leaves entries without the field unordered, and refuses orderBy "id" before anything is written', async () => {
    const name = uniqueName('ord');
    const stream = await elsewhere(name);
    await stream.appendBatch([{ n: '1' }, { acct: 'x', seq: '0' }, { n: '2' }]);
    const seen: string[] = [];
    consumers.push(await stream.consume('g', (e) => void seen.push(e.payload.n ?? `x${e.payload.seq ?? ''}`), { start: 'head', consumer: 'c', orderBy: 'acct', beatMs: 50 }));
    await until(() => seen.length === 3);
    expect(seen.sort()).toEqual(['1', '2', 'x0']);
    await expect(stream.consume('h', () => undefined, { start: 'head', consumer: 'c', orderBy: 'id' })).rejects.toThrow(/orderBy/);
    expect(((await conn.command('XINFO', 'GROUPS', stream.key)) as unknown[]).length).toBe(1);
  });
});
