/**
 * Defaults that keep their promises: `waitUntilFinished` right after `enqueue` works while completed
 * jobs are not kept (the recent completions hold the verdict, bounded), and a result reads back as
 * the value the handler returned everywhere: getResult, waitUntilFinished, getJob, listJobs, the
 * `completed` lifecycle event and the worker's own event.
 */
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, parseOutcomesEntry, type JobId } from '@echo/protocol/queue';
import { decodeResult, encodeResult, Queue, resultValue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

const quiet = { maintenanceMs: 20, blockMs: 50, onError: (): void => undefined };

describe('the result encoding', () => {
  it('tells a string that looks like JSON from the JSON value', () => {
    const values: unknown[] = ['done', '42', '{"a":1}', '', 42, { a: 1 }, [1, 'x'], null, true, 'null'];
    for (const value of values) expect(decodeResult(encodeResult(value))).toEqual(value);
    // A plain string stays plain text on the wire (flow parents and other runtimes read it so).
    expect(encodeResult('done')).toBe('done');
    expect(encodeResult('42')).toBe('"42"');
    expect(encodeResult(undefined)).toBeUndefined();
  });
});

describe('waitUntilFinished under the default retention', () => {
  it('resolves right after enqueue, however fast the job ran, with no completed row kept', async () => {
    const q = await Queue.open<number>(uniqueName('wuf'), { connection: conn });
    const done: JobId[] = [];
    const worker = await Worker.start(q, (job) => ({ doubled: job.payload * 2 }), quiet);
    worker.on('completed', ({ job }) => done.push(job.id));
    try {
      const { id } = await q.enqueue(21);
      // Let the job finish before the wait starts: the race the default used to lose.
      await until(() => Promise.resolve(done.includes(id)), 'the job completed');
      expect(await q.getJob(id)).toBeUndefined();
      await expect(q.waitUntilFinished(id, { timeoutMs: 5000 })).resolves.toEqual({ id, result: { doubled: 42 } });
      // And straight after enqueue, with no pause at all.
      const next = await q.enqueue(5);
      await expect(q.waitUntilFinished(next.id, { timeoutMs: 5000 })).resolves.toEqual({ id: next.id, result: { doubled: 10 } });
    } finally {
      await worker.close();
      await q.close();
    }
  });

  it('keeps about the last 1000 completions and no more', async () => {
    const q = await Queue.open<number>(uniqueName('wuf'), { connection: conn });
    const total = 2500;
    await q.enqueueMany(Array.from({ length: total }, (_, n) => ({ payload: n })));
    let completed = 0;
    while (completed < total) {
      const jobs = await q.leases().claimBatch(500, 30_000);
      await q.leases().completeMany(jobs.map((job) => ({ id: job.id, attempts: job.attempts, result: 'ok' })));
      completed += jobs.length;
    }
    const entries = (await conn.command('XRANGE', q.keys.outcomes, '-', '+')) as [string, string[]][];
    const kept = entries.flatMap(([entry, fields]) => parseOutcomesEntry(entry, fields).outcomes);
    // One entry per completing call (500 jobs each here), trimmed (MAXLEN ~) to about 1000 jobs'
    // worth of entries at the newest entry's size: whole stream nodes go, so up to a node more.
    expect(kept.length).toBeGreaterThanOrEqual(1000);
    expect(kept.length).toBeLessThanOrEqual(1500);
    expect(kept.every((o) => o.token === 1 && o.result === 'ok')).toBe(true);
    await q.close();
  });

  it('writes no recent completions while completed rows are kept', async () => {
    const q = await Queue.open<number>(uniqueName('wuf'), { connection: conn, keep: { completed: { count: 10 } } });
    const { id } = await q.enqueue(1);
    const job = await q.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    await q.leases().complete(job, 'kept');
    expect(await conn.command('EXISTS', q.keys.outcomes)).toBe(0);
    await expect(q.waitUntilFinished(id, { timeoutMs: 2000 })).resolves.toEqual({ id, result: 'kept' });
    await q.close();
  });
});

describe('one result shape everywhere', () => {
  it('getResult, waitUntilFinished, getJob, listJobs, the lifecycle event and the worker event agree', async () => {
    const q = await Queue.open<string>(uniqueName('shape'), { connection: conn, keep: { completed: { count: 10 } } });
    const results: Record<string, unknown> = { text: '42', json: { total: 42 }, plain: 'done' };
    const events = await q.events();
    const heard = new Map<string, unknown>();
    const off = events.on('completed', (event) => heard.set(event.job, resultValue(event)));
    const fromWorker = new Map<string, unknown>();
    const worker = await Worker.start(q, (job) => results[job.payload], quiet);
    worker.on('completed', ({ job, result }) => fromWorker.set(job.id, result));
    try {
      const ids = new Map<string, JobId>();
      for (const name of Object.keys(results)) ids.set(name, (await q.enqueue(name)).id);
      await until(() => Promise.resolve(heard.size === 3 && fromWorker.size === 3), 'three completions heard');
      const page = await q.listJobs('completed');
      for (const [name, id] of ids) {
        const want = results[name];
        expect(await q.getResult(id)).toEqual(want);
        expect((await q.waitUntilFinished(id, { timeoutMs: 2000 })).result).toEqual(want);
        expect((await q.getJob(id))?.result).toEqual(want);
        expect(page.jobs.find((j) => j.id === id)?.record?.result).toEqual(want);
        expect(heard.get(id)).toEqual(want);
        expect(fromWorker.get(id)).toEqual(want);
      }
      // The string '42' is not the number 42.
      expect(await q.getResult(ids.get('text') as JobId)).toBe('42');
    } finally {
      off();
      await worker.close();
      await events.close();
      await q.close();
    }
  });

  it('the completed event carries the result when completed jobs are not kept', async () => {
    const q = await Queue.open<number>(uniqueName('shape'), { connection: conn });
    const events = await q.events();
    try {
      const { id } = await q.enqueue(1);
      const heard = events.next((e) => e.job === id && e.event === 'completed');
      const job = await q.leases().claim(30_000);
      if (job === undefined) throw new Error('nothing to claim');
      await q.leases().complete(job, encodeResult({ n: 1 }), { publish: true });
      expect(resultValue(await heard)).toEqual({ n: 1 });
    } finally {
      await events.close();
      await q.close();
    }
  });
});
