import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, InvalidArgumentError } from '@echo/protocol/queue';
import { Queue, rawCodec, type ListState } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

describe('Queue.listJobs', () => {
  it('pages pending jobs oldest first with their rows', async () => {
    const queue = await Queue.open<{ n: number }>(uniqueName('ls'), { connection: conn });
    const ids = (await queue.enqueueMany(Array.from({ length: 7 }, (_, n) => ({ payload: { n } })))).map((r) => r.id);
    const first = await queue.listJobs('pending', { limit: 3 });
    const second = await queue.listJobs('pending', { offset: 3, limit: 3 });
    const last = await queue.listJobs('pending', { offset: 6, limit: 3 });
    expect(first.total).toBe(7);
    expect([...first.jobs, ...second.jobs, ...last.jobs].map((j) => j.id)).toEqual(ids);
    expect(first.jobs.map((j) => j.record?.payload)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    expect(first.jobs[0]).toMatchObject({ score: 0, rawPayload: '{"n":0}', record: { state: 'pending', attempts: 0 } });
  });

  it('lists scheduled by run-at, active with its lease deadline, dead with the error', async () => {
    const queue = await Queue.open<string>(uniqueName('ls'), { connection: conn, codec: rawCodec });
    const now = Date.now();
    const later = await queue.enqueue('later', { delayMs: 120_000 });
    const sooner = await queue.enqueue('sooner', { delayMs: 60_000 });
    await queue.enqueue('run');
    await queue.enqueue('doomed');
    const held = await queue.leases().claim(30_000);
    const doomed = await queue.leases().claim(30_000);
    await queue.leases().retry(doomed!, 0, 1, 'boom');

    const scheduled = await queue.listJobs('scheduled');
    expect(scheduled.jobs.map((j) => j.id)).toEqual([sooner.id, later.id]);
    expect(scheduled.jobs[0]!.score).toBeGreaterThanOrEqual(now + 60_000);
    const active = await queue.listJobs('active');
    expect(active.jobs.map((j) => [j.id, j.record?.state])).toEqual([[held!.id, 'active']]);
    expect(active.jobs[0]!.score).toBeGreaterThan(now);
    const dead = await queue.listJobs('dead');
    expect(dead.jobs.map((j) => [j.id, j.record?.lastError, j.record?.attempts])).toEqual([[doomed!.id, 'boom', 1]]);
  });

  it('keeps a page whole when one payload does not decode', async () => {
    const name = uniqueName('ls');
    const writer = await Queue.open<string>(name, { connection: conn, codec: rawCodec });
    await writer.enqueue('not json');
    await writer.enqueue('{"ok":true}');
    const reader = await Queue.open<{ ok: boolean }>(name, { connection: conn });
    const page = await reader.listJobs('pending');
    expect(page.jobs.map((j) => [j.record?.payload, j.rawPayload])).toEqual([[undefined, 'not json'], [{ ok: true }, '{"ok":true}']]);
  });

  it('refuses bad input before reading', async () => {
    const queue = await Queue.open(uniqueName('ls'), { connection: conn });
    const before = conn.stats().commands;
    await expect(queue.listJobs('waiting' as ListState)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(queue.listJobs('dead', { limit: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(queue.listJobs('dead', { offset: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(conn.stats().commands).toBe(before);
  });
});
