/**
 * bull-board (its API, its BullMQ adapter and its Hono server adapter, the real npm packages)
 * showing a queue of the drop-in: this package's `bullmq` dependency is `@echo/bullmq`.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { uniqueName, useRedis } from '@echo/testkit';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBullmq, nextEvent, type Bullmq } from './load.js';

let bullmq: Bullmq;
let connection: { host: string; port: number };
const closing: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  // bull-board checks `queue instanceof Queue` against the `bullmq` it requires itself: the queue is
  // made from that same module (see load.ts).
  bullmq = loadBullmq();
  const redis = await useRedis();
  connection = { host: redis.host, port: redis.port };
});

afterAll(async () => {
  for (const thing of closing.splice(0).reverse()) await thing.close().catch(() => undefined);
});

interface QueueView {
  readonly name: string;
  readonly counts: Record<string, number>;
  readonly jobs: { id: string; name: string; data: unknown; returnValue?: unknown; failedReason?: string }[];
}

function board(queue: InstanceType<Bullmq['Queue']>): Hono {
  const serverAdapter = new HonoAdapter(serveStatic);
  // The board and its adapter come from two installs of @bull-board/api (the hono adapter pins
  // its own); their types are nominally apart though the versions match.
  createBullBoard({ queues: [new BullMQAdapter(queue) as never], serverAdapter });
  serverAdapter.setBasePath('/ui');
  const app = new Hono();
  app.route('/ui', serverAdapter.registerPlugin());
  return app;
}

async function call<T>(app: Hono, method: 'GET' | 'PUT', path: string): Promise<T> {
  const response = await app.request(`/ui${path}`, { method });
  const text = await response.text();
  expect([200, 204], `${method} ${path}: ${String(response.status)} ${text}`).toContain(response.status);
  return (text === '' ? {} : JSON.parse(text)) as T;
}

describe('bull-board over @echo/bullmq', () => {
  it('lists the queue and its jobs by state, shows a job, retries a failed one and cleans completed ones', async () => {
    const name = uniqueName('board');
    const queue = new bullmq.Queue(name, { connection });
    closing.push(queue);
    const app = board(queue);
    const worker = new bullmq.Worker(name, (job) => {
      if ((job.data as { fail?: boolean }).fail === true) return Promise.reject(new Error('paint ran out'));
      return Promise.resolve('painted');
    }, { connection });
    closing.push(worker);
    const done = nextEvent(worker, 'completed');
    const ok = await queue.add('paint', { color: 'red' });
    await done;
    const failedOnce = nextEvent(worker, 'failed');
    const bad = await queue.add('paint', { fail: true });
    await failedOnce;

    const { queues } = await call<{ queues: QueueView[] }>(app, 'GET', `/api/queues?activeQueue=${name}&status=completed&page=1`);
    const view = queues.find((q) => q.name === name);
    expect(view?.counts).toMatchObject({ completed: 1, failed: 1 });
    expect(view?.jobs.map((j) => j.id)).toEqual([ok.id]);
    expect(view?.jobs[0]?.returnValue).toBe('painted');

    const detail = await call<{ job: { id: string; data: unknown; failedReason?: string } }>(app, 'GET', `/api/queues/${name}/${bad.id}`);
    expect(detail.job).toMatchObject({ id: bad.id, data: { fail: true } });
    expect(detail.job.failedReason).toContain('paint ran out');

    // Retry: the failed job runs again (and fails again, as its data says).
    const failedAgain = nextEvent(worker, 'failed');
    await call(app, 'PUT', `/api/queues/${name}/${bad.id}/retry`);
    await failedAgain;
    expect((await queue.getJob(bad.id))?.attemptsMade).toBeGreaterThanOrEqual(1);

    // Clean one job: the failed one goes.
    await call(app, 'PUT', `/api/queues/${name}/${bad.id}/clean`);
    expect(await queue.getJob(bad.id)).toBeUndefined();

    // Clean all: the board cleans jobs finished more than 5 s ago, so the completed list empties
    // once the job is that old; ask again until it has (bounded well past the 5 s).
    const until = Date.now() + 20_000;
    while ((await queue.getCompletedCount()) > 0 && Date.now() < until) {
      await call(app, 'PUT', `/api/queues/${name}/clean/completed`);
      if ((await queue.getCompletedCount()) > 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await queue.getCompletedCount()).toBe(0);
  });
});
