/**
 * A stalled job's death is a failure: when the stalled sweep dead-letters a job, the `failed`
 * lifecycle event (outcome dead, error stalled) follows its `stalled` one, and the `failed`
 * listeners of the worker whose sweep found it hear it with the job and a JobStalledError.
 */
import type { LifecycleEvent } from '@echo/protocol/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobStalledError, Queue, Worker, type WorkerEvents } from '../src/index.js';
import { until } from './worker-harness.js';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
}, 60_000);
afterAll(async () => {
  await server.stop();
});

describe('death by stalling', () => {
  it('publishes failed after stalled, and reaches the sweeping worker failed listeners', async () => {
    const q = await Queue.open<{ order: number }>(`stalled-fail-${String(process.pid)}`, { connect: { host: server.host, port: server.port, strictKeys: true } });
    const events = await q.events();
    const seen: LifecycleEvent[] = [];
    events.on('*', (event) => seen.push(event));
    const { id } = await q.enqueue({ order: 7 }, { name: 'ship' });
    // A holder that dies: it claims with a short lease and never settles.
    expect((await q.leases().claim(1))?.id).toBe(id);
    const failed: WorkerEvents<{ order: number }>['failed'][] = [];
    const worker = await Worker.start(q, () => undefined, { maintenanceMs: 20, blockMs: 50, stalled: { maxStalled: 1 } });
    worker.on('failed', (event) => failed.push(event));
    await until(() => failed.length === 1, 'the worker heard the failure');
    await worker.close();
    const [event] = failed;
    expect(event?.outcome).toBe('dead');
    expect(event?.error).toBeInstanceOf(JobStalledError);
    expect(event?.job).toMatchObject({ id, name: 'ship', attempts: 1, payload: { order: 7 } });
    await until(() => seen.some((e) => e.event === 'failed'), 'the failed event');
    expect(seen.filter((e) => e.job === id).map((e) => [e.event, e.fields])).toEqual([
      ['stalled', { outcome: 'dead' }],
      ['failed', { outcome: 'dead', error: 'stalled' }],
    ]);
    expect(await q.getState(id)).toBe('dead');
    await events.close();
    await q.close();
  });
});
