/**
 * The publish deduplication window of a stream: an append with a message id seen within the window
 * writes nothing and answers the first append's id, by the server's clock, atomically.
 */
import { InvalidArgumentError, IdMinter, NonMonotonicError, queueKeys } from '@echo/protocol/bus';
import type { Connection } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchAppendError, Bus, DEFAULT_DEDUP_WINDOW_MS, type StreamBus } from '../src/index.js';
import { connect, until } from './helpers.js';

let conn: Connection;
let bus: StreamBus;

beforeAll(async () => {
  conn = await connect();
  bus = await Bus.open({ connection: conn });
});
afterAll(async () => {
  await conn.close();
});

const fresh = (options: { dedupWindowMs?: number } = {}) => bus.stream(uniqueName('dd'), options);

describe('append with a message id', () => {
  it('writes the first append and answers a second within the window with the first id, writing nothing', async () => {
    const stream = fresh();
    const first = await stream.append({ order: '42' }, { msgId: 'order-42' });
    expect(first.duplicate).toBe(false);
    const again = await stream.append({ order: '42', retried: 'yes' }, { msgId: 'order-42' });
    expect(again).toEqual({ id: first.id, duplicate: true });
    const other = await stream.append({ order: '43' }, { msgId: 'order-43' });
    expect(other.duplicate).toBe(false);
    expect((await stream.read()).map(([id, f]) => [id, f])).toEqual([
      [first.id, { order: '42' }],
      [other.id, { order: '43' }],
    ]);
    // Plain appends are untouched by the window.
    await stream.append({ plain: '1' });
    await stream.append({ plain: '1' });
    expect(await stream.read()).toHaveLength(4);
  });

  it('keeps the window in two keys beside the stream that expire with it, and forgets an id once its window ends', async () => {
    // The window is long enough that the reads below land inside it on a loaded machine (a 150 ms
    // window once lapsed before the PTTL read), and short enough to wait out.
    const stream = fresh({ dedupWindowMs: 1_500 });
    const keys = queueKeys(stream.queue);
    const first = await stream.append({ n: '1' }, { msgId: 'm' });
    expect(await conn.command('HGET', keys.streamPart(stream.name, 'msgids'), 'm')).toBe(first.id);
    const ttl = Number(await conn.command('PTTL', keys.streamPart(stream.name, 'msgids:until')));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_500);
    // Past the window (by the server's clock) the same id is a new message: the window key expiring
    // is the server saying so, whatever our own clock or the machine's load.
    await until(async () => (await conn.command('EXISTS', keys.streamPart(stream.name, 'msgids:until'))) === 0);
    const later = await stream.append({ n: '2' }, { msgId: 'm' });
    expect(later.duplicate).toBe(false);
    expect(later.id).not.toBe(first.id);
    expect(await stream.read()).toHaveLength(2);
  });

  it('lands a message once when writers on two connections race on its id', async () => {
    const other = await connect();
    try {
      const name = uniqueName('dd');
      const mine = bus.stream(name);
      const theirs = (await Bus.open({ connection: other })).stream(name);
      const receipts = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? mine : theirs).append({ i: String(i) }, { msgId: 'race' })));
      const landed = receipts.filter((r) => r.status === 'fulfilled' && !r.value.duplicate);
      expect(landed).toHaveLength(1);
      // Losers either saw the duplicate or minted below the winner (one writer per stream is the posture).
      for (const r of receipts) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(NonMonotonicError);
      expect(await mine.read()).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('decides a batch in one step: ids seen before, or earlier in the batch, write nothing', async () => {
    const stream = fresh();
    const before = await stream.append({ n: '0' }, { msgId: 'a' });
    const receipts = await stream.appendBatch([{ n: '1' }, { n: '2' }, { n: '3' }, { n: '4' }], { msgIds: ['a', 'b', 'c', 'b'] });
    expect(receipts.map((r) => r.duplicate)).toEqual([true, false, false, true]);
    expect(receipts[0]?.id).toBe(before.id);
    expect(receipts[3]?.id).toBe(receipts[1]?.id);
    expect((await stream.read()).map(([, f]) => f.n)).toEqual(['0', '2', '3']);
  });

  it('reports a refused record of a batch beside the others, and does not remember its id', async () => {
    const stream = fresh();
    const high = await stream.append({ high: '1' }, { msgId: 'seen' });
    const behind = (await Bus.open({ connection: conn, minter: new IdMinter({ node: 8, now: () => 1_750_000_000_000 }) })).stream(stream.name);
    const error = await behind.appendBatch([{ n: '1' }, { n: '2' }], { msgIds: ['seen', 'x'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchAppendError);
    const results = (error as BatchAppendError).results;
    expect(results[0]).toEqual({ ok: true, id: high.id });
    expect(results[1]?.ok).toBe(false);
    expect((error as BatchAppendError).cause).toBeInstanceOf(NonMonotonicError);
    await expect(behind.append({ n: '2' }, { msgId: 'y' })).rejects.toBeInstanceOf(NonMonotonicError);
    // A refused record is not remembered: the id is free for a later, well-ordered append.
    expect((await stream.append({ n: '3' }, { msgId: 'x' })).duplicate).toBe(false);
    expect(await stream.read()).toHaveLength(2);
  });

  it('refuses a bad message id or window before anything is written', async () => {
    const stream = fresh();
    await expect(stream.append({ a: '1' }, { msgId: '' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(stream.appendBatch([{ a: '1' }, { a: '2' }], { msgIds: ['one'] })).rejects.toThrow(/one message id per record/);
    expect(() => bus.stream('w', { dedupWindowMs: 0 })).toThrow(InvalidArgumentError);
    expect(await conn.command('EXISTS', stream.key, queueKeys(stream.queue).streamPart(stream.name, 'msgids'))).toBe(0);
    expect(DEFAULT_DEDUP_WINDOW_MS).toBe(120_000);
  });

  it('drop takes the window with the stream', async () => {
    const stream = fresh();
    await stream.append({ a: '1' }, { msgId: 'm' });
    expect(await stream.drop()).toBe(true);
    expect(await conn.command('EXISTS', queueKeys(stream.queue).streamPart(stream.name, 'msgids'), queueKeys(stream.queue).streamPart(stream.name, 'msgids:until'))).toBe(0);
    expect((await stream.append({ a: '1' }, { msgId: 'm' })).duplicate).toBe(false);
  });
});
