/**
 * The operator's questions through the JSON API, against a real server: find a job by id, business
 * key or name; its attempt history and its scheduler; select-and-act; schedulers; per-minute
 * counts; a stream's dead letters and their redrive. Every new write also holds read-only mode, the
 * write header and the authorize hook.
 */
import { Bus } from '@echo/bus';
import { Cache } from '@echo/cache';
import { Connection, type AttemptRecord } from '@echo/protocol/extend';
import { Queue, Worker, type ClaimedJob } from '@echo/queue';
import { uniqueName, useRedis, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard, WRITE_HEADER, type BulkResult, type DeadLetterView, type JobDetail, type NamespaceEntries, type NamespaceView, type SchedulerView, type SearchResult } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const headers = { [WRITE_HEADER]: '1', 'content-type': 'application/json' };
const post = (body: unknown): RequestInit => ({ method: 'POST', headers, body: JSON.stringify(body) });

async function keysOf(prefix: string): Promise<string[]> {
  return ((await conn.command('KEYS', `${prefix}*`)) as string[]).sort();
}

/** A queue whose jobs fail `fails` times (history on), with `dead` poison jobs dead-lettered. */
async function failingQueue(dead: number): Promise<{ queue: Queue<string>; ids: string[] }> {
  const queue = await Queue.open<string>(uniqueName('ops'), { connection: conn });
  await queue.setEvents({ history: 20, minutes: 60 });
  const worker = await Worker.start(queue, (job: ClaimedJob<string>) => {
    throw new Error(`declined #${String(job.attempts)}`);
  }, { maxAttempts: 2, backoff: () => 0, blockMs: 50, maintenanceMs: 20 });
  const ids: string[] = [];
  for (let i = 0; i < dead; i++) ids.push((await queue.enqueue(`order-${String(i)}`, { name: 'charge', key: `order-${String(i)}` })).id);
  await waitFor(async () => (await queue.counts('dead')).dead === dead, { timeoutMs: 10_000 });
  await worker.close();
  return { queue, ids };
}

describe('operator API', () => {
  it('finds a job by id, by business key and by name, and shows its attempts and errors', async () => {
    const { queue, ids } = await failingQueue(2);
    const app = createDashboard({ connection: conn });
    const search = async (q: string): Promise<SearchResult> => (await (await app.request(`/api/queues/${queue.name}/search?q=${encodeURIComponent(q)}`)).json()) as SearchResult;
    expect((await search(ids[0] ?? '')).hits.map((h) => [h.match, h.job.id])).toEqual([['id', ids[0]]]);
    expect((await search('order-1')).hits.map((h) => [h.match, h.job.id, h.job.key])).toEqual([['key', ids[1], 'order-1']]);
    expect((await search('charge')).hits.map((h) => h.job.id).sort()).toEqual([...ids].sort());
    expect((await search('nothing-here')).hits).toEqual([]);
    const detail = (await (await app.request(`/api/queues/${queue.name}/jobs/${ids[0] ?? ''}`)).json()) as JobDetail;
    expect(detail.name).toBe('charge');
    expect(detail.finishedAt).toBeGreaterThan(0);
    expect(detail.history.map((a: AttemptRecord) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, 'retried', 'declined #1'],
      [2, 'failed', 'declined #2'],
    ]);
    const minutes = (await (await app.request(`/api/queues/${queue.name}/minutes?last=60`)).json()) as { minutes: { failed: number }[] };
    expect(minutes.minutes).toHaveLength(60);
    expect(minutes.minutes.reduce((n, m) => n + m.failed, 0)).toBe(4);
  });

  it('retries a selection of dead jobs, reporting the one that moved meanwhile', async () => {
    const { queue, ids } = await failingQueue(3);
    const app = createDashboard({ connection: conn });
    await queue.remove(ids[2] ?? '');
    const reply = await app.request(`/api/queues/${queue.name}/bulk`, post({ action: 'retry', ids: [ids[0], ids[2]] }));
    expect(reply.status).toBe(200);
    const result = (await reply.json()) as BulkResult;
    expect(result).toMatchObject({ action: 'retry', done: 1, refused: 1 });
    expect(result.outcomes.map((o) => [o.id, o.ok, o.error ?? null])).toEqual([[ids[0], true, null], [ids[2], false, 'GoneError']]);
    expect(await queue.getState(ids[0] ?? '')).toBe('pending');
    expect(await queue.getState(ids[1] ?? '')).toBe('dead');
  });

  it('refuses a bad or unknown bulk request, and every new write when read-only, unheadered or unauthorized', async () => {
    const { queue, ids } = await failingQueue(1);
    await queue.upsertScheduler('nightly', { everyMs: 3_600_000 }, 'x');
    const before = await keysOf(`emq:{${queue.name}}`);
    const open = createDashboard({ connection: conn });
    const status = async (app: ReturnType<typeof createDashboard>, path: string, init: RequestInit): Promise<[number, string]> => {
      const res = await app.request(path, init);
      return [res.status, ((await res.json()) as { error: string }).error];
    };
    const bulk = `/api/queues/${queue.name}/bulk`;
    expect(await status(open, bulk, post({ action: 'requeue', ids }))).toEqual([400, 'InvalidArgumentError']);
    expect(await status(open, bulk, post({ action: 'retry', ids: [] }))).toEqual([400, 'InvalidArgumentError']);
    expect(await status(open, bulk, post({ action: 'retry', jobs: ids }))).toEqual([400, 'UnknownOptionError']);
    expect(await status(open, bulk, { method: 'POST', headers, body: 'not json' })).toEqual([400, 'InvalidArgumentError']);
    const writes: [string, unknown][] = [
      [bulk, { action: 'retry', ids }],
      [`/api/queues/${queue.name}/schedulers/nightly/remove`, {}],
      [`/api/streams/${queue.name}/audit/redrive`, { all: true }],
    ];
    const readOnly = createDashboard({ connection: conn, readOnly: true });
    const denied = createDashboard({ connection: conn, authorize: (_request, access) => access === 'read' });
    for (const [path, body] of writes) {
      expect((await status(readOnly, path, post(body)))[0]).toBe(403);
      expect((await status(denied, path, post(body)))[0]).toBe(403);
      expect((await status(open, path, { method: 'POST', body: JSON.stringify(body) }))[0]).toBe(403);
    }
    expect(await keysOf(`emq:{${queue.name}}`)).toEqual(before);
    expect(await queue.getState(ids[0] ?? '')).toBe('dead');
  });

  it('lists schedulers with pattern, next and last run, links a job to its scheduler, and removes one', async () => {
    const queue = await Queue.open<string>(uniqueName('ops'), { connection: conn });
    await queue.upsertScheduler('nightly', { everyMs: 60_000, firstInMs: 0 }, 'report');
    expect(await queue.maintenance().fireDueRepeats()).toBe(1);
    const app = createDashboard({ connection: conn });
    const list = (await (await app.request(`/api/queues/${queue.name}/schedulers`)).json()) as { schedulers: SchedulerView[] };
    const [s] = list.schedulers;
    expect(s).toMatchObject({ id: 'nightly', pattern: 'every 60000 ms', count: 1, template: '"report"' });
    expect(s?.lastRunAt).toBeGreaterThan(0);
    expect(s?.next).toBeGreaterThan(s?.lastRunAt ?? Infinity);
    const job = (await (await app.request(`/api/queues/${queue.name}/jobs/${s?.lastJob ?? ''}`)).json()) as JobDetail;
    expect(job.scheduler).toBe('nightly');
    expect(job.schedulerInfo).toEqual({ id: 'nightly', next: s?.next, lastRunAt: s?.lastRunAt, pattern: 'every 60000 ms' });
    const removed = await app.request(`/api/queues/${queue.name}/schedulers/nightly/remove`, post({}));
    expect(await removed.json()).toEqual({ removed: true });
    expect(await queue.getSchedulers()).toEqual([]);
  });

  it('shows keyed namespaces with their entries, tags and this process\'s hit ratio, and deletes a key or a tag everywhere', async () => {
    const cache = await Cache.open({ connection: conn });
    const name = uniqueName('sess');
    const sessions = await cache.namespace<{ user: string }>({ name, ttlMs: 60_000 });
    await sessions.set('s1', { user: 'ann' }, { tags: ['team-a'] });
    await sessions.set('s2', { user: 'bob' }, { tags: ['team-a'] });
    await sessions.set('s3', { user: 'cy' }, { tags: ['team-b'] });
    await sessions.get('s1');
    await sessions.get('nope');
    const app = createDashboard({ connection: conn, namespaces: [sessions] });
    const list = (await (await app.request('/api/namespaces')).json()) as { namespaces: NamespaceView[]; local: boolean };
    const view = list.namespaces.find((n) => n.name === name);
    expect(view).toMatchObject({ entries: 3, tags: 2, local: { hits: 1, misses: 1, hitRatio: 0.5 } });
    const page = (await (await app.request(`/api/namespaces/${name}`)).json()) as NamespaceEntries;
    expect(page.entries.map((e) => e.key)).toEqual(['s1', 's2', 's3']);
    expect(page.entries.every((e) => e.ttlMs !== null && e.ttlMs > 0 && e.ttlMs <= 60_000)).toBe(true);
    expect(page.tags).toEqual([{ tag: 'team-a', entries: 2 }, { tag: 'team-b', entries: 1 }]);

    const del = (body: unknown) => app.request(`/api/namespaces/${name}/delete`, post(body));
    expect(await (await del({ key: 's3' })).json()).toEqual({ deleted: 1 });
    // The app's own L1 hears the delete through the coherence log.
    await waitFor(async () => (await sessions.get('s3')) === undefined, { timeoutMs: 5000 });
    expect(await (await del({ tag: 'team-a' })).json()).toEqual({ deleted: 2 });
    await waitFor(async () => (await sessions.get('s1')) === undefined, { timeoutMs: 5000 });
    expect(await keysOf(`ecc:{${name}}:k:`)).toEqual([]);
    expect((await del({ keys: ['s1'] })).status).toBe(400);
    expect((await del({ key: 's1', tag: 'team-a' })).status).toBe(400);
    const readOnly = createDashboard({ connection: conn, readOnly: true });
    await sessions.set('s4', { user: 'di' });
    expect((await readOnly.request(`/api/namespaces/${name}/delete`, post({ key: 's4' }))).status).toBe(403);
    expect(await sessions.get('s4')).toEqual({ user: 'di' });
    await cache.close();
  });

  it("lists a stream's dead letters and redrives the ones selected", async () => {
    const name = uniqueName('ops');
    const stream = (await Bus.open(name, { connection: conn })).stream('audit');
    const ids = [await stream.append({ n: '1' }), await stream.append({ n: '2' })];
    const consumer = await stream.consume('billing', () => ({ deadLetter: 'refused by billing' }), { start: 'head', consumer: 'b1' });
    await waitFor(async () => (await stream.deadLetters()).length === 2, { timeoutMs: 10_000 });
    await consumer.close();
    const app = createDashboard({ connection: conn });
    const url = `/api/streams/${name}/audit`;
    const list = (await (await app.request(`${url}/dead-letters`)).json()) as { deadLetters: DeadLetterView[] };
    expect(list.deadLetters.map((d) => [d.id, d.group, d.reason, d.payload.n])).toEqual([
      [ids[0], 'billing', 'refused by billing', '1'],
      [ids[1], 'billing', 'refused by billing', '2'],
    ]);
    expect((await app.request(`${url}/redrive`, post({ ids: ['nope'] }))).status).toBe(400);
    expect((await app.request(`${url}/redrive`, post({ records: ids }))).status).toBe(400);
    const redriven = await app.request(`${url}/redrive`, post({ ids: [ids[1]] }));
    expect(await redriven.json()).toEqual({ redriven: 1, left: 0 });
    expect((await stream.deadLetters()).map((d) => d.id)).toEqual([ids[0]]);
    const pending = (await conn.command('XPENDING', stream.key, 'billing')) as [number, ...unknown[]];
    expect(pending[0]).toBe(1);
    expect(await (await app.request(`${url}/redrive`, post({ all: true }))).json()).toEqual({ redriven: 1, left: 0 });
    expect(await stream.deadLetters()).toEqual([]);
  });
});
