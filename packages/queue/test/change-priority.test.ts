/**
 * `changePriority` (a waiting job moves to its new priority at once, after the jobs waiting there
 * or, with `lifo`, ahead of them; any other job carries the priority until it next waits) and
 * `clearLogs` (keeps a job's newest log lines, or deletes its log).
 */
import { GoneError, InvalidArgumentError, UnknownOptionError } from '@echo/protocol/queue';
import { describe, expect, it } from 'vitest';
import type { Queue } from '../src/index.js';
import { queuesPerFile } from './queues-per-file.js';

const { open } = queuesPerFile('reprio');

/** The payloads of every waiting job, in the order workers get them. */
async function claimOrder(q: Queue<string>): Promise<string[]> {
  return (await q.leases().claimBatch(100, 60_000)).map((job) => job.payload);
}

describe('changePriority', () => {
  it('moves a waiting job after the jobs waiting at its new priority, ahead of lower ones', async () => {
    const q = await open<string>();
    const { id: a } = await q.enqueue('a', { priority: 1 });
    await q.enqueue('b', { priority: 5 });
    await q.enqueue('c', { priority: 5 });
    await q.enqueue('d', { priority: 4, lifo: true });
    expect(await q.changePriority(a, 5)).toBe('moved');
    expect(await claimOrder(q)).toEqual(['b', 'c', 'a', 'd']);
    await q.close();
  });

  it('with lifo, moves it ahead of the jobs waiting at its new priority, the newest move first', async () => {
    const q = await open<string>();
    await q.enqueue('a', { priority: 2 });
    const { id: b } = await q.enqueue('b');
    const { id: c } = await q.enqueue('c');
    await q.enqueue('d', { priority: 3 });
    await q.changePriority(b, 2, { lifo: true });
    await q.changePriority(c, 2, { lifo: true });
    expect(await claimOrder(q)).toEqual(['d', 'c', 'b', 'a']);
    await q.close();
  });

  it('lets a delayed job keep its place and wait at the new priority once promoted', async () => {
    const q = await open<string>();
    const { id: late } = await q.enqueue('late', { delayMs: 60_000 });
    await q.enqueue('now', { priority: 1 });
    expect(await q.changePriority(late, 9)).toBe('kept');
    expect(await q.getState(late)).toBe('scheduled');
    await q.promote(late);
    expect(await claimOrder(q)).toEqual(['late', 'now']);
    await q.close();
  });

  it('writes a new payload in the same step when given one', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('old');
    await q.changePriority(id, 3, { payload: 'new' });
    expect((await q.getJob(id))?.payload).toBe('new');
    await q.close();
  });

  it('refuses a missing job, a bad priority and an unknown option, and changes nothing', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('a', { priority: 1 });
    await q.enqueue('b', { priority: 2 });
    await expect(q.changePriority(id, 2_097_153)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.changePriority(id, 1.5)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(q.changePriority(id, 3, { front: true } as never)).rejects.toBeInstanceOf(UnknownOptionError);
    expect(await claimOrder(q)).toEqual(['b', 'a']);
    const { id: gone } = await q.enqueue('c');
    await q.remove(gone);
    await expect(q.changePriority(gone, 3)).rejects.toBeInstanceOf(GoneError);
    await q.close();
  });
});

describe('clearLogs', () => {
  it('keeps the newest lines asked for, or deletes the log', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('a');
    for (const line of ['1', '2', '3']) await q.addLog(id, line);
    expect(await q.clearLogs(id, 4)).toBe(3);
    expect(await q.getLogs(id)).toEqual(['1', '2', '3']);
    expect(await q.clearLogs(id, 2)).toBe(2);
    expect(await q.getLogs(id)).toEqual(['2', '3']);
    expect(await q.clearLogs(id)).toBe(0);
    expect(await q.getLogs(id)).toEqual([]);
    await q.close();
  });

  it('refuses a missing job and a negative count', async () => {
    const q = await open<string>();
    const { id } = await q.enqueue('a');
    await q.addLog(id, 'kept');
    await expect(q.clearLogs(id, -1)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await q.getLogs(id)).toEqual(['kept']);
    await expect(q.clearLogs('JOB0000000000X')).rejects.toBeInstanceOf(GoneError);
    await q.close();
  });
});
