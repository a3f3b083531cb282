/**
 * The operator's commands against a real server: a job's name, key, finish time, scheduler and
 * attempt history; search by business key; a selection retried; schedulers; per-minute counts;
 * a stream's dead letters and their redrive; the version. Each with --json, exit codes as for the
 * other commands.
 */
import { Bus } from '@echo/bus';
import { Connection, type AttemptRecord, type JobId } from '@echo/protocol/extend';
import { Queue, Worker, type ClaimedJob } from '@echo/queue';
import { uniqueName, useRedis, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, main, type CliIo } from '../src/index.js';

let url: string;
let conn: Connection;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await Connection.connect({ url });
});
afterAll(async () => {
  await conn.close();
});

async function emq(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: { REDIS_URL: url }, isTty: false, signal: new AbortController().signal };
  const code = await main(args, io);
  return { code, out, err };
}

async function jsonOf<T>(args: readonly string[]): Promise<T> {
  const ran = await emq([...args, '--json']);
  expect(ran).toMatchObject({ code: 0, err: '' });
  return JSON.parse(ran.out) as T;
}

/** `n` invoices dead after two attempts each, with history and per-minute counts on. */
async function deadInvoices(n: number): Promise<{ queue: Queue<{ n: number }>; ids: JobId[] }> {
  const queue = await Queue.open<{ n: number }>(uniqueName('inv'), { connection: conn });
  await queue.setEvents({ history: 20, minutes: 180 });
  const ids: JobId[] = [];
  for (let i = 1; i <= n; i++) ids.push((await queue.enqueue({ n: i }, { key: `inv-${String(i)}`, name: 'send-invoice' })).id);
  const worker = await Worker.start(queue, (job: ClaimedJob<{ n: number }>) => {
    throw new Error(`refused ${String(job.payload.n)}/${String(job.attempts)}`);
  }, { maxAttempts: 2, backoff: () => 0, blockMs: 50, maintenanceMs: 20 });
  await waitFor(async () => (await queue.counts('dead')).dead === n, { timeoutMs: 10_000 });
  await worker.close();
  return { queue, ids };
}

describe('emq for the operator', () => {
  it('job shows name, key, finish time and every attempt with its error; search finds it by business key', async () => {
    const { queue, ids } = await deadInvoices(2);
    const id = ids[1] ?? '';
    const text = await emq(['job', queue.name, id]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^name: +send-invoice$/m);
    expect(text.out).toMatch(/^key: +inv-2$/m);
    expect(text.out).toMatch(/^finished: +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/m);
    expect(text.out).toMatch(/^ {2}1 .* retried +refused 2\/1$/m);
    expect(text.out).toMatch(/^ {2}2 .* failed +refused 2\/2$/m);
    const detail = await jsonOf<{ history: AttemptRecord[]; key: string; finishedAt: number }>(['job', queue.name, id]);
    expect(detail.history.map((a) => [a.attempt, a.outcome, a.error])).toEqual([[1, 'retried', 'refused 2/1'], [2, 'failed', 'refused 2/2']]);
    const found = await emq(['search', queue.name, 'inv-2']);
    expect(found.code).toBe(0);
    expect(found.out.split('\n')[1]).toMatch(new RegExp(`^${id} +key +dead +send-invoice +inv-2 +2 `));
    const byName = await jsonOf<{ hits: { match: string; job: { id: string } }[] }>(['search', queue.name, 'send-invoice']);
    expect(byName.hits.map((h) => h.job.id).sort()).toEqual([...ids].sort());
    expect(await emq(['search', queue.name, 'inv-9'])).toMatchObject({ code: EXIT.notFound });
    expect(await emq(['search', 'no-such-queue', 'inv-2'])).toMatchObject({ code: EXIT.notFound });
    const minutes = await emq(['minutes', queue.name]);
    expect(minutes.out).toContain(`${queue.name}: 0 completed, 4 failed attempts in the last 60 minutes`);
    const perMinute = await jsonOf<{ minutes: { failed: number }[] }>(['minutes', queue.name, '--last', '5']);
    expect(perMinute.minutes).toHaveLength(5);
    expect(perMinute.minutes.reduce((n, m) => n + m.failed, 0)).toBe(4);
    expect(await emq(['minutes', queue.name, '--last', '0'])).toMatchObject({ code: EXIT.usage });
  });

  it('retry takes a selection: the named dead jobs come back, a refused one is listed with status 1', async () => {
    const { queue, ids } = await deadInvoices(3);
    const [a, b, c] = ids as [JobId, JobId, JobId];
    const both = await jsonOf<{ ok: boolean; retried: string[] }>(['retry', queue.name, a, c]);
    expect(both).toEqual({ ok: true, retried: [a, c], refused: [] });
    expect(await Promise.all(ids.map((id) => queue.getState(id)))).toEqual(['pending', 'dead', 'pending']);
    const again = await emq(['retry', queue.name, a, b]);
    expect(again.code).toBe(EXIT.failed);
    expect(again.out).toContain(`retried 1 of 2 job(s) in ${queue.name}`);
    expect(again.out).toContain(`${a}: StateError`);
    expect(await queue.getState(b)).toBe('pending');
    expect(await emq(['retry', queue.name, a, '--all-dead'])).toMatchObject({ code: EXIT.usage });
  });

  it('schedulers lists pattern, next and last run; job names the scheduler that produced it', async () => {
    const queue = await Queue.open<string>(uniqueName('sched'), { connection: conn });
    await queue.upsertScheduler('nightly', { everyMs: 86_400_000, firstInMs: 0 }, 'report');
    expect(await queue.maintenance().fireDueRepeats()).toBe(1);
    const list = await jsonOf<{ schedulers: { id: string; next: number; lastRunAt: number; lastJob: string; pattern: string }[] }>(['schedulers', queue.name]);
    const [s] = list.schedulers;
    expect(s).toMatchObject({ id: 'nightly', pattern: 'every 86400000 ms' });
    expect(s?.next).toBeGreaterThan(s?.lastRunAt ?? Infinity);
    const text = await emq(['schedulers', queue.name]);
    expect(text.out.split('\n')[1]).toMatch(new RegExp(`^nightly +every 86400000 ms +\\d{4}-.* ${s?.lastJob ?? ''} +1$`));
    const job = await emq(['job', queue.name, s?.lastJob ?? '']);
    expect(job.out).toMatch(/^scheduler: +nightly \(every 86400000 ms; next run \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/m);
    expect(await emq(['schedulers', 'no-such-queue'])).toMatchObject({ code: EXIT.notFound });
  });

  it("dlq lists a stream's dead letters and redrive puts the named ones, then all, back", async () => {
    const name = uniqueName('bus');
    const stream = (await Bus.open(name, { connection: conn })).stream('refunds');
    const ids = [await stream.append({ order: 'r1' }), await stream.append({ order: 'r2' }), await stream.append({ order: 'r3' })];
    const consumer = await stream.consume('ledger', () => ({ deadLetter: 'ledger closed' }), { start: 'head', consumer: 'l1' });
    await waitFor(async () => (await stream.deadLetters()).length === 3, { timeoutMs: 10_000 });
    await consumer.close();
    const text = await emq(['dlq', name, 'refunds']);
    expect(text.code).toBe(0);
    expect(text.out.split('\n')[1]).toMatch(new RegExp(`^${ids[0] ?? ''} +ledger +l1 +1 +\\d{4}-.* ledger closed +\\{"order":"r1"\\}$`));
    const page = await jsonOf<{ deadLetters: { id: string; record: string }[] }>(['dlq', name, 'refunds', '--limit', '2']);
    expect(page.deadLetters.map((d) => d.id)).toEqual(ids.slice(0, 2));
    const rest = await jsonOf<{ deadLetters: { id: string }[] }>(['dlq', name, 'refunds', '--after', page.deadLetters[1]?.record ?? '']);
    expect(rest.deadLetters.map((d) => d.id)).toEqual(ids.slice(2));
    expect(await jsonOf(['redrive', name, 'refunds', ids[1] ?? ''])).toEqual({ ok: true, queue: name, stream: 'refunds', redriven: 1, left: 0 });
    expect((await stream.deadLetters()).map((d) => d.id)).toEqual([ids[0], ids[2]]);
    expect((await emq(['redrive', name, 'refunds', '--all'])).out).toBe(`redriven 2 dead letter(s) of ${name}/refunds\n`);
    expect(await stream.deadLetters()).toEqual([]);
    expect((await emq(['dlq', name, 'refunds'])).out).toBe(`no dead letters in ${name}/refunds\n`);
    expect(await emq(['redrive', name, 'refunds'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['redrive', name, 'refunds', 'not-an-id'])).toMatchObject({ code: EXIT.usage });
    expect(await emq(['dlq', name, 'nowhere'])).toMatchObject({ code: EXIT.notFound });
  });

  it('--version prints the package version, as text or JSON, without connecting', async () => {
    const { version } = (await import('../package.json', { with: { type: 'json' } })).default as { version: string };
    const io = await emq(['--version']);
    expect(io).toEqual({ code: 0, out: `emq ${version}\n`, err: '' });
    expect(await jsonOf(['--version'])).toEqual({ name: '@echo/cli', version });
  });
});
