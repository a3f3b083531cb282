/**
 * A death by stalling reaches the `failed` listeners of the worker whose sweep found it, once, with
 * the job, also when the queue keeps no dead rows (the sweep deletes the row in the same step).
 */
import type { LifecycleEvent } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { JobStalledError, Queue, Worker, type WorkerEvents } from '../src/index.js';
import { sleep, until } from './worker-harness.js';

describe('death by stalling, on a queue that keeps no dead jobs', () => {
  it('the sweeping worker emits failed once (outcome dead, JobStalledError, the job), as the channel carries it', async () => {
    const server = await useRedis();
    const q = await Queue.open<{ order: number }>(uniqueName('stalled-unkept'), { connect: { url: server.url, strictKeys: true } });
    await q.setRetention({ failed: { count: 0 } });
    const events = await q.events();
    const seen: LifecycleEvent[] = [];
    events.on('*', (event) => seen.push(event));
    const { id } = await q.enqueue({ order: 7 }, { name: 'ship' });
    // A holder that dies: it claims with a short lease and never settles.
    expect((await q.leases().claim(300))?.id).toBe(id);
    const failed: WorkerEvents<{ order: number }>['failed'][] = [];
    const stalled: WorkerEvents<{ order: number }>['stalled'][] = [];
    const worker = await Worker.start(q, () => undefined, { maintenanceMs: 20, blockMs: 50, stalled: { maxStalled: 1 } });
    worker.on('failed', (event) => failed.push(event));
    worker.on('stalled', (event) => stalled.push(event));
    await until(() => stalled.length === 1, 'the sweep to find the job');
    await until(() => failed.length === 1, 'the worker to hear the failure');
    // Later sweeps find nothing more: it is reported once.
    await sleep(200);
    await worker.close();
    expect(stalled).toEqual([{ id, outcome: 'dead' }]);
    expect(failed).toHaveLength(1);
    const [event] = failed;
    expect(event?.outcome).toBe('dead');
    expect(event?.error).toBeInstanceOf(JobStalledError);
    expect(event?.job).toMatchObject({ id, name: 'ship', attempts: 1, payload: { order: 7 } });
    // The row is gone: nothing of the job is left to read afterwards.
    expect(await q.getJob(id)).toBeUndefined();
    await until(() => seen.some((e) => e.event === 'failed'), 'the failed event');
    expect(seen.filter((e) => e.job === id).map((e) => [e.event, e.fields])).toEqual([
      ['stalled', { outcome: 'dead' }],
      ['failed', { outcome: 'dead', error: 'stalled' }],
    ]);
    await events.close();
    await q.close();
  });
});
