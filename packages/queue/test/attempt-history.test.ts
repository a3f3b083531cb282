/**
 * The attempt history (the flight recorder) and the per-minute counts, read as an operator would:
 * through getAttempts / getMinutes and the keys on the server.
 */
import { useRedis, uniqueName, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, GoneError, InvalidArgumentError, parseKey, UnknownOptionError } from '@echo/protocol/extend';
import { exponential, Queue, Worker, type ClaimedJob } from '../src/index.js';
import { expectError } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const quick = { maxAttempts: 3, backoff: exponential(1, 10), maintenanceMs: 20, blockMs: 50 };

async function keysOf(q: Queue): Promise<string[]> {
  return ((await conn.command('KEYS', `emq:{${q.name}}:*`)) as string[]).sort();
}

/** Fails the first `failures` attempts of every job, then completes it. */
async function flaky(q: Queue<string>, failures: number): Promise<Worker<string>> {
  return Worker.start(q, (job: ClaimedJob<string>) => {
    if (job.attempts <= failures) throw new Error(`boom ${String(job.attempts)}`);
    return 'ok';
  }, { ...quick, maxAttempts: failures + 2 });
}

describe('attempt history', () => {
  it('records each attempt: start, end, outcome, duration, error; the completion where the row is kept', async () => {
    const q = await Queue.open<string>(uniqueName('hist'), { connection: conn, keep: { completed: { count: 10 } } });
    await q.setEvents({ history: 20 });
    const worker = await flaky(q, 2);
    const { id } = await q.enqueue('x');
    await waitFor(async () => (await q.getState(id)) === 'completed', { timeoutMs: 5000 });
    await worker.close();
    const attempts = await q.getAttempts(id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, 'retried', 'boom 1'],
      [2, 'retried', 'boom 2'],
      [3, 'completed', null],
    ]);
    for (const a of attempts) {
      expect(a.startedAt).toBeGreaterThan(0);
      expect(a.endedAt).toBeGreaterThanOrEqual(a.startedAt ?? Infinity);
      expect(a.durationMs).toBe((a.endedAt ?? 0) - (a.startedAt ?? 0));
    }
  });

  it('marks the dead-lettering attempt failed, keeps only the last N attempts, and goes with the row', async () => {
    const q = await Queue.open<string>(uniqueName('hist'), { connection: conn });
    await q.setEvents({ history: 2 });
    const worker = await Worker.start(q, (job: ClaimedJob<string>) => {
      throw new Error(`boom ${String(job.attempts)}`);
    }, { ...quick, maxAttempts: 4 });
    const { id } = await q.enqueue('poison');
    await waitFor(async () => (await q.getState(id)) === 'dead', { timeoutMs: 5000 });
    await worker.close();
    expect((await q.getAttempts(id)).map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [3, 'retried', 'boom 3'],
      [4, 'failed', 'boom 4'],
    ]);
    expect(await keysOf(q)).toContain(`${q.keys.job(id)}:attempts`);
    await q.remove(id);
    expect((await keysOf(q)).filter((k) => parseKey(k).kind === 'job')).toEqual([]);
    await expect(q.getAttempts(id)).rejects.toBeInstanceOf(GoneError);
  });

  it('goes with the row on every deleting path (clean, drain, obliterate), and parses as a job sub-key', async () => {
    const q = await Queue.open<string>(uniqueName('hist'), { connection: conn });
    await q.setEvents({ history: 20 });
    const worker = await Worker.start(q, () => {
      throw new Error('boom');
    }, { ...quick, maxAttempts: 2, backoff: () => 3_600_000 });
    const dead = await q.enqueue('poison', { attempts: 1 });
    const waiting = await q.enqueue('slow');
    await waitFor(async () => (await q.getState(dead.id)) === 'dead' && (await q.getState(waiting.id)) === 'scheduled', { timeoutMs: 5000 });
    await worker.close();
    const subs = (await keysOf(q)).map((k) => parseKey(k)).filter((p) => p.kind === 'job' && p.sub === 'attempts');
    expect(subs).toHaveLength(2);
    expect(await q.clean({ state: 'dead', olderThanMs: 0 })).toBe(1);
    expect(await q.drain({ includeScheduled: true })).toBe(1);
    expect((await keysOf(q)).filter((k) => parseKey(k).kind === 'job')).toEqual([]);

    await q.enqueue('poison');
    const again = await Worker.start(q, () => {
      throw new Error('boom');
    }, { ...quick, maxAttempts: 1 });
    await waitFor(async () => (await q.counts('dead')).dead === 1, { timeoutMs: 5000 });
    await again.close();
    expect((await keysOf(q)).some((k) => k.endsWith(':attempts'))).toBe(true);
    await q.pause();
    await q.obliterate({ force: true });
    expect(await keysOf(q)).toEqual([]);
  });

  it('writes nothing when off (the default), and a completed row that is not kept leaves no history', async () => {
    const off = await Queue.open<string>(uniqueName('hist'), { connection: conn, keep: { failed: { count: 10 } } });
    const w1 = await flaky(off, 1);
    const a = await off.enqueue('x');
    const b = await off.enqueue('y');
    await waitFor(async () => (await off.counts('completed')).completed === 2, { timeoutMs: 5000 });
    await w1.close();
    expect((await keysOf(off)).filter((k) => k.endsWith(':attempts'))).toEqual([]);
    expect(a.id).not.toBe(b.id);

    const on = await Queue.open<string>(uniqueName('hist'), { connection: conn });
    await on.setEvents({ history: 20 });
    const w2 = await flaky(on, 1);
    await on.enqueue('x');
    await waitFor(async () => (await on.counts('completed')).completed === 1, { timeoutMs: 5000 });
    await w2.close();
    expect((await keysOf(on)).filter((k) => parseKey(k).kind === 'job')).toEqual([]);
  });

  it('counts completions and failed attempts per minute when asked', async () => {
    const q = await Queue.open<string>(uniqueName('hist'), { connection: conn });
    expect((await q.getMinutes(5)).every((m) => m.completed === 0 && m.failed === 0)).toBe(true);
    await q.setEvents({ minutes: 120 });
    const worker = await flaky(q, 1);
    await q.enqueueMany([{ payload: 'a' }, { payload: 'b' }, { payload: 'c' }]);
    await waitFor(async () => (await q.counts('completed')).completed === 3, { timeoutMs: 5000 });
    await worker.close();
    const minutes = await q.getMinutes(2);
    expect(minutes).toHaveLength(2);
    expect(minutes.reduce((n, m) => n + m.completed, 0)).toBe(3);
    expect(minutes.reduce((n, m) => n + m.failed, 0)).toBe(3);
    expect(minutes[1]?.at).toBeGreaterThan(minutes[0]?.at ?? Infinity);
  });

  it('refuses a bad setting and an unknown one before writing', async () => {
    const q = await Queue.open<string>(uniqueName('hist'), { connection: conn });
    const before = await keysOf(q);
    await expect(q.setEvents({ history: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.setEvents({ minutes: 1.5 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.setEvents({ history: 5000 })).rejects.toBeInstanceOf(InvalidArgumentError);
    const unknown = await q.setEvents({ attempts: 20 } as never).catch((e: unknown) => e);
    expectError(unknown, UnknownOptionError);
    expect((unknown as UnknownOptionError).hint).toContain('history: n');
    expect(await keysOf(q)).toEqual(before);
  });
});
