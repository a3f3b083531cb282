import { Connection, InvalidArgumentError } from '@echo/protocol/queue';
import { uniqueName, useRedis, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';

let url: string;
let conn: Connection;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await Connection.connect({ url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

async function open(): Promise<Queue<{ n: number }>> {
  return Queue.open<{ n: number }>(uniqueName('sched'), { connection: conn });
}

describe('job schedulers', () => {
  it('a cron scheduler in a time zone is due at the next match in that zone, and lists what it stores', async () => {
    const q = await open();
    expect(await q.upsertScheduler('paris-9am', { cron: '0 9 * * *', tz: 'Europe/Paris' }, { n: 1 }, { limit: 5 })).toBe('created');
    const [s] = await q.getSchedulers();
    expect(s).toMatchObject({ id: 'paris-9am', cron: '0 9 * * *', tz: 'Europe/Paris', everyMs: undefined, count: 0, limit: 5, template: { n: 1 } });
    const hourInParis = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hour12: false }).format(s!.next);
    expect(hourInParis).toBe('09:00');
    expect(s!.next.getTime()).toBeGreaterThan(Date.now());
    expect(s!.next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('an upsert with the same cadence keeps the next run; a new cadence or template takes effect', async () => {
    const q = await open();
    await q.upsertScheduler('s', { everyMs: 60_000 }, { n: 1 });
    const [before] = await q.getSchedulers();
    expect(await q.upsertScheduler('s', { everyMs: 60_000 }, { n: 2 })).toBe('updated');
    const [same] = await q.getSchedulers();
    expect(same!.next).toEqual(before!.next);
    expect(same!.template).toEqual({ n: 2 });
    await q.upsertScheduler('s', { everyMs: 120_000 }, { n: 2 });
    const [changed] = await q.getSchedulers();
    expect(changed!.next.getTime()).toBeGreaterThan(before!.next.getTime());
    expect(changed!.everyMs).toBe(120_000);
  });

  it('fires each occurrence once however many pumps race for it', async () => {
    const name = uniqueName('sched');
    const pumps = await Promise.all([0, 1, 2].map(async () => Queue.open<{ n: number }>(name, { connection: await Connection.connect({ url }) })));
    await pumps[0]!.upsertScheduler('race', { everyMs: 60_000, firstInMs: 0 }, { n: 7 });
    const fired = await Promise.all(pumps.map((p) => p.maintenance().fireDueRepeats()));
    expect(fired.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await pumps[0]!.counts('pending')).toEqual({ pending: 1 });
    for (const p of pumps) await p.connection.close();
  });

  it('names its scheduler on each job it fires, and keeps its last run', async () => {
    const q = await open();
    await q.upsertScheduler('nightly', { everyMs: 60_000, firstInMs: 0 }, { n: 1 });
    const [before] = await q.getSchedulers();
    expect(before?.lastRunAt).toBeUndefined();
    expect(await q.maintenance().fireDueRepeats()).toBe(1);
    const [s] = await q.getSchedulers();
    expect(s?.lastJob).toMatch(/^JOB/);
    expect(s?.lastRunAt?.getTime()).toBeGreaterThan(0);
    expect(s?.next.getTime()).toBeGreaterThan(s?.lastRunAt?.getTime() ?? Infinity);
    const job = await q.getJob(s?.lastJob ?? '');
    expect(job?.scheduler).toBe('nightly');
    expect(job?.payload).toEqual({ n: 1 });
  });

  it('retires itself after its run limit, and never fires outside its window', async () => {
    const q = await open();
    await q.upsertScheduler('thrice', { everyMs: 1, firstInMs: 0 }, { n: 3 }, { limit: 3 });
    let fired = 0;
    await waitFor(async () => {
      fired += await q.maintenance().fireDueRepeats();
      return fired >= 3;
    }, { timeoutMs: 5000 });
    expect(await q.maintenance().fireDueRepeats()).toBe(0);
    expect(await q.getSchedulers()).toEqual([]);
    expect(await q.counts('pending')).toEqual({ pending: 3 });

    await q.upsertScheduler('ended', { everyMs: 1, firstInMs: 0 }, { n: 0 }, { endAt: Date.now() - 1000 });
    expect(await q.maintenance().fireDueRepeats()).toBe(0);
    expect(await q.getSchedulers()).toEqual([]);

    const startAt = Date.now() + 3_600_000;
    await q.upsertScheduler('later', { everyMs: 1, firstInMs: 0 }, { n: 0 }, { startAt });
    const [later] = await q.getSchedulers();
    expect(later!.next.getTime()).toBe(startAt);
  });

  it('refuses a bad pattern, time zone, window or limit and writes nothing', async () => {
    const q = await open();
    for (const attempt of [
      () => q.upsertScheduler('x', { cron: 'every minute' }, { n: 0 }),
      () => q.upsertScheduler('x', { cron: '* * * * *', tz: 'Mars/Olympus' }, { n: 0 }),
      () => q.upsertScheduler('x', { everyMs: 0 }, { n: 0 }),
      () => q.upsertScheduler('x', { everyMs: 10 }, { n: 0 }, { startAt: 10, endAt: 5 }),
      () => q.upsertScheduler('x', { everyMs: 10 }, { n: 0 }, { limit: 0 }),
    ]) {
      await expect(attempt()).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    expect(await q.getSchedulers()).toEqual([]);
    expect(await conn.command('EXISTS', q.keys.repeat, q.keys.repeatRecord('x'))).toBe(0);
  });

  it("a worker's pump runs a scheduler: the handler sees each occurrence's template", async () => {
    const q = await open();
    const seen: number[] = [];
    const worker = await Worker.start(q, (job) => {
      seen.push(job.payload.n);
    }, { maintenanceMs: 20, blockMs: 50 });
    await q.upsertScheduler('tick', { everyMs: 30, firstInMs: 0 }, { n: 42 }, { limit: 3 });
    await waitFor(() => seen.length === 3, { timeoutMs: 5000 });
    await worker.close();
    expect(seen).toEqual([42, 42, 42]);
    expect(await q.getSchedulers()).toEqual([]);
  });
});
