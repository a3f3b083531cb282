import { Bus } from '@echo/bus';
import { Cache } from '@echo/cache';
import { Connection, HookMetrics, mintId } from '@echo/protocol/extend';
import { Queue, Worker } from '@echo/queue';
import { startRedis, waitFor, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, createDashboard, prometheusMetrics } from '../src/index.js';

// Its own server: the scrape lists every queue and stream on it.
let server: RedisServer;
let conn: Connection;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

describe('/metrics', () => {
  it('exposes queue depths, counters, stream lag, cache rows and the hook counters in the text format', async () => {
    const hooks = new HookMetrics().start();
    try {
      const queue = await Queue.open<string>('prom-orders', { connection: conn });
      await queue.enqueueMany(['ok', 'bad', 'waits'].map((payload) => ({ payload })));
      let seen = 0;
      const worker = await Worker.start(queue, (job) => {
        seen++;
        if (job.payload === 'bad') throw new Error('declined');
        if (job.payload === 'waits') return new Promise((resolve) => setTimeout(resolve, 60_000).unref());
        return undefined;
      }, { blockMs: 50, maxAttempts: 1, closeTimeoutMs: 10 });
      await waitFor(async () => seen === 3 && (await queue.counts('dead')).dead === 1, { what: 'the jobs to settle' });
      const bus = await Bus.open('prom-orders', { connection: conn });
      await bus.stream('audit').append({ n: '1' });
      await bus.stream('audit').append({ n: '2' });
      await conn.command('XGROUP', 'CREATE', queue.keys.stream('audit'), 'indexer', '0');
      const cache = await Cache.open({ connection: conn });
      const users = await cache.namespace<string>({ name: 'users' });
      await users.getOrSet('u1', () => 'Ann');
      await users.get('u1');
      // A declared table: its L2 rows are on the server, its hit counters in the directory.
      const accounts = await cache.declare({ name: 'accounts', kind: 'ACC', loader: (id) => ({ id }) });
      const account = mintId('ACC');
      await accounts.fetch(account);
      await accounts.fetch(account);

      const app = createDashboard({ connection: conn, metrics: hooks, cache });
      const reply = await app.request('/metrics');
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await reply.text();
      for (const line of [
        'echo_queue_jobs{queue="prom-orders",state="active"} 1',
        'echo_queue_jobs{queue="prom-orders",state="dead"} 1',
        'echo_queue_jobs{queue="prom-orders",state="lanes"} 0',
        'echo_queue_completed_total{queue="prom-orders"} 1',
        'echo_queue_failed_total{queue="prom-orders"} 1',
        'echo_queue_paused{queue="prom-orders"} 0',
        'echo_stream_length{queue="prom-orders",stream="audit"} 2',
        'echo_stream_group_lag{queue="prom-orders",stream="audit",group="indexer"} 2',
        'echo_cache_l2_rows{table="accounts"} 1',
        'echo_cache_table_hit_ratio{table="accounts"} 0.5',
        'echo_jobs_enqueued_total{queue="prom-orders"} 3',
        'echo_jobs_completed_total{queue="prom-orders"} 1',
        'echo_jobs_failed_total{queue="prom-orders",outcome="dead"} 1',
        'echo_job_processing_seconds_count{queue="prom-orders",outcome="completed"} 1',
        'echo_stream_appended_total{queue="prom-orders",stream="audit"} 2',
        'echo_cache_fills_total{table="users"} 1',
        'echo_cache_hit_ratio{table="users"} 0.5',
      ]) {
        expect(text).toContain(`\n${line}\n`);
      }
      expect(text).toContain('# TYPE echo_job_processing_seconds histogram\n');
      // The same text as a function, without the dashboard.
      expect(await prometheusMetrics(Admin.over(conn), { hooks })).toContain('echo_queue_jobs{queue="prom-orders",state="dead"} 1');
      await worker.close();
      await cache.close();
    } finally {
      hooks.stop();
    }
  });

  it('is not served when turned off', async () => {
    expect((await createDashboard({ connection: conn, metrics: false }).request('/metrics')).status).toBe(404);
  });
});
