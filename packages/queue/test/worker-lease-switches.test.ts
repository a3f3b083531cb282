/**
 * The two switches BullMQ calls skipLockRenewal and skipStalledCheck: a worker that does not extend
 * its leases lets a long job lapse (another worker's sweep recovers it as stalled), and a worker
 * that does not recover leases leaves a lapsed job where it is.
 */
import { InvalidArgumentError } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type WorkerEvents } from '../src/index.js';
import { rejection, sleep, until } from './worker-harness.js';

describe('extendLeases and recoverLeases', () => {
  it('extendLeases: false lets a job running past its lease lapse; a sweeping worker recovers it as stalled', async () => {
    const server = await useRedis();
    const q = await Queue.open<{ n: number }>(uniqueName('no-extend'), { connect: { url: server.url } });
    const { id } = await q.enqueue({ n: 1 });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await Worker.start(q, () => held, { leaseMs: 300, extendEveryMs: 50, extendLeases: false, recoverLeases: false, blockMs: 50 });
    await until(async () => (await q.getJob(id))?.state === 'active', 'the slow worker to take the job');
    const stalled: WorkerEvents<{ n: number }>['stalled'][] = [];
    const sweeper = await Worker.start(q, () => undefined, { maintenanceMs: 50, blockMs: 50, stalled: { maxStalled: 2 } });
    sweeper.on('stalled', (event) => stalled.push(event));
    await until(() => stalled.length > 0, 'the sweeper to recover the lapsed job');
    expect(stalled[0]).toEqual({ id, outcome: 'recovered' });
    release();
    await slow.close();
    await sweeper.close();
    await q.close();
  });

  it('by default a job running past its lease is extended and never stalls', async () => {
    const server = await useRedis();
    const q = await Queue.open<{ n: number }>(uniqueName('extend'), { connect: { url: server.url } });
    const { id } = await q.enqueue({ n: 1 });
    const worker = await Worker.start(q, () => sleep(700), { leaseMs: 300, extendEveryMs: 50, maintenanceMs: 50, blockMs: 50, stalled: { maxStalled: 2 } });
    const stalled: unknown[] = [];
    const completed: string[] = [];
    worker.on('stalled', (event) => stalled.push(event));
    worker.on('completed', (event) => completed.push(event.job.id));
    await until(() => completed.length > 0, 'the job to complete');
    expect(completed).toEqual([id]);
    expect(stalled).toEqual([]);
    await worker.close();
    await q.close();
  });

  it('recoverLeases: false runs no stalled sweep: a lapsed lease stays active', async () => {
    const server = await useRedis();
    const q = await Queue.open<{ n: number }>(uniqueName('no-recover'), { connect: { url: server.url } });
    const { id } = await q.enqueue({ n: 1 });
    // A holder that dies: it claims with a short lease and never settles.
    expect((await q.leases().claim(100))?.id).toBe(id);
    const worker = await Worker.start(q, () => undefined, { maintenanceMs: 20, blockMs: 50, recoverLeases: false, stalled: { maxStalled: 1 } });
    const stalled: unknown[] = [];
    worker.on('stalled', (event) => stalled.push(event));
    await sleep(400);
    expect(stalled).toEqual([]);
    expect((await q.getJob(id))?.state).toBe('active');
    await worker.close();
    await q.close();
  });

  it('refuses a switch that is not a boolean, starting nothing', async () => {
    const server = await useRedis();
    const q = await Queue.open(uniqueName('switch-type'), { connect: { url: server.url } });
    expect(await rejection(Worker.start(q, () => undefined, { extendLeases: 'no' as unknown as boolean }))).toBeInstanceOf(InvalidArgumentError);
    expect(await rejection(Worker.start(q, () => undefined, { recoverLeases: 0 as unknown as boolean }))).toBeInstanceOf(InvalidArgumentError);
    expect(await q.getWorkers()).toEqual([]);
    await q.close();
  });
});
