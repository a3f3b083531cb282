import { Connection, PermissionError, queueAclRules } from '@echo/protocol/queue';
import { startRedis, waitFor, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = server.client();
  await admin.call('ACL', 'SETUSER', 'orders', 'on', '>orders-pw', ...queueAclRules(['orders']));
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

describe('least-privilege ACL for the queue pillar', () => {
  it('a worker on a queue its user has no rights on stops with PermissionError as its fatalError', async () => {
    const conn = await Connection.connect({ host: server.host, port: server.port, username: 'orders', password: 'orders-pw' });
    const billing = await Queue.open<number>('billing', { connection: conn });
    const errors: unknown[] = [];
    const worker = await Worker.start(billing, () => undefined, { maintenanceMs: 0, blockMs: 50, onError: (error) => errors.push(error) });
    const closed = new Promise<void>((resolve) => worker.once('closed', () => resolve()));
    await closed;
    expect(worker.fatalError).toBeInstanceOf(PermissionError);
    expect(errors.length).toBeLessThanOrEqual(2);
    await conn.close();
  });

  it('runs the orders queue end to end as a user limited to its keys', async () => {
    const conn = await Connection.connect({ host: server.host, port: server.port, username: 'orders', password: 'orders-pw' });
    const orders = await Queue.open<number>('orders', { connection: conn });
    await conn.command('SCRIPT', 'FLUSH').catch(() => undefined);
    const done: number[] = [];
    const worker = await Worker.start(orders, (job) => {
      done.push(job.payload);
      if (job.payload === 3 && job.attempts === 1) throw new Error('once');
    }, { concurrency: 4, maintenanceMs: 20, blockMs: 50, backoff: { type: 'fixed', ms: 10 } });
    await orders.enqueueMany([1, 2, 3, 4].map((payload) => ({ payload })));
    await orders.enqueue(5, { delayMs: 20 });
    await waitFor(async () => (await orders.counts('completed')).completed === 5, { what: 'five completions', timeoutMs: 10_000 });
    await worker.close();
    expect(worker.fatalError).toBeUndefined();
    expect(await orders.counts('completed', 'pending', 'active', 'scheduled')).toEqual({ completed: 5, pending: 0, active: 0, scheduled: 0 });
    expect(await orders.getLogs((await orders.enqueue(6)).id)).toEqual([]);
    // The events journal: written by the scripts, read back by its reader, under the same rules.
    await orders.setEvents({ chatty: true, journal: 100 });
    const { id } = await orders.enqueue(7);
    const journal = orders.journal({ from: 'head', blockMs: 50 });
    expect((await journal.next()).value?.event).toEqual({ event: 'waiting', job: id, fields: {} });
    await journal.close();
    await orders.pause();
    await orders.obliterate({ force: true });
    await conn.close();
  });

  it('gets a typed PermissionError, not a hang, on any other queue, and nothing is written', async () => {
    const conn = await Connection.connect({ host: server.host, port: server.port, username: 'orders', password: 'orders-pw' });
    const payments = await Queue.open<number>('payments', { connection: conn });
    const started = Date.now();
    const error = await payments.enqueue(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).code).toBe('permission');
    // A hang runs to the test's timeout; the bound leaves a loaded machine ample room.
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(payments.counts('pending')).rejects.toBeInstanceOf(PermissionError);
    expect(await admin.keys('emq:{payments}:*')).toEqual([]);
    await conn.close();
  });
});
