import { Connection, UnknownOptionError } from '@echo/protocol/queue';
import { startRedis, uniqueName, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker } from '../src/index.js';
import { expectError, rejection } from './worker-harness.js';

/** A server of its own: the keyspace compared before and after holds only what this file wrote. */
let server: RedisServer;
let conn: Connection;
let queue: Queue<number>;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
  queue = await Queue.open<number>(uniqueName('strict-worker'), { connection: conn });
  await queue.enqueue(1);
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

/** Every key on the server, sorted (`SCAN` to the end). */
async function keyspace(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await conn.command('SCAN', cursor, 'MATCH', '*', 'COUNT', 1000)) as [string, string[]];
    cursor = next;
    keys.push(...batch.map(String));
  } while (cursor !== '0');
  return keys.sort();
}

interface Row {
  /** The refused key, as the error names it. */
  readonly option: string;
  /** Where the error says it was passed. */
  readonly where: string;
  /** A word the hint must carry (the Echo option that means it); undefined: no hint expected. */
  readonly hint: string | undefined;
  readonly start: () => Promise<unknown>;
}

const worker = (options: object): (() => Promise<unknown>) => () => Worker.start(queue, () => undefined, options);
const batch = (options: object): (() => Promise<unknown>) => () => BatchWorker.start(queue, () => 'ok', options);

const W = 'Worker.start options';
const B = 'BatchWorker.start options';
const rows: readonly Row[] = [
  { option: 'limiter', where: W, hint: 'setRateLimit', start: worker({ limiter: { max: 1, duration: 1000 } }) },
  { option: 'attempts', where: W, hint: 'maxAttempts', start: worker({ attempts: 5 }) },
  { option: 'removeOnComplete', where: W, hint: 'keep', start: worker({ removeOnComplete: true }) },
  { option: 'removeOnFail', where: W, hint: 'setRetention', start: worker({ removeOnFail: 10 }) },
  { option: 'lockDuration', where: W, hint: 'leaseMs', start: worker({ lockDuration: 30_000 }) },
  { option: 'lockRenewTime', where: W, hint: 'extendEveryMs', start: worker({ lockRenewTime: 15_000 }) },
  { option: 'stalledInterval', where: W, hint: 'maintenanceMs', start: worker({ stalledInterval: 30_000 }) },
  { option: 'maxStalledCount', where: W, hint: 'maxStalled', start: worker({ maxStalledCount: 2 }) },
  { option: 'skipStalledCheck', where: W, hint: 'recoverLeases', start: worker({ skipStalledCheck: true }) },
  { option: 'skipLockRenewal', where: W, hint: 'extendLeases', start: worker({ skipLockRenewal: true }) },
  { option: 'connection', where: W, hint: 'Queue.open', start: worker({ connection: { host: 'localhost' } }) },
  { option: 'settings', where: W, hint: 'backoff', start: worker({ settings: { backoffStrategy: () => 1000 } }) },
  { option: 'prefix', where: W, hint: 'queue name', start: worker({ prefix: 'bull' }) },
  { option: 'drainDelay', where: W, hint: 'blockMs', start: worker({ drainDelay: 5 }) },
  { option: 'runRetryDelay', where: W, hint: 'blockMs', start: worker({ runRetryDelay: 15_000 }) },
  { option: 'useWorkerThreads', where: W, hint: 'process', start: worker({ useWorkerThreads: true }) },
  { option: 'concurency', where: W, hint: undefined, start: worker({ concurency: 5 }) },
  { option: 'maxStalledCount', where: `${W}.stalled`, hint: 'maxStalled', start: worker({ stalled: { maxStalledCount: 2 } }) },
  { option: 'delay', where: 'backoff', hint: 'exponential', start: worker({ backoff: { type: 'exponential', delay: 1000 } }) },
  { option: 'limiter', where: B, hint: 'setRateLimit', start: batch({ limiter: { max: 1, duration: 1000 } }) },
  { option: 'batch', where: B, hint: 'size', start: batch({ batch: { size: 10 } }) },
  { option: 'respectConcurrencyGate', where: B, hint: 'Worker', start: batch({ respectConcurrencyGate: true }) },
  { option: 'lockDuration', where: B, hint: 'leaseMs', start: batch({ lockDuration: 30_000 }) },
  { option: 'timeout', where: `${B}.shape`, hint: 'timeoutMs', start: batch({ shape: { minSize: 2, timeout: 100 } }) },
  { option: 'max', where: `${B}.stalled`, hint: undefined, start: batch({ stalled: { max: 2 } }) },
];

describe('Worker.start and BatchWorker.start refuse options they do not know, before anything starts', () => {
  it.each(rows)('$where.$option', async (row) => {
    const before = await keyspace();
    const clients = await conn.command('CLIENT', 'LIST');
    const error = await rejection(row.start());
    expectError(error, UnknownOptionError);
    const refusal = error as UnknownOptionError;
    expect(refusal.option).toBe(row.option);
    expect(refusal.where).toBe(row.where);
    if (row.hint === undefined) {
      expect(refusal.hint).toBeUndefined();
      expect(refusal.message).toContain('known:');
    } else {
      expect(refusal.hint).toContain(row.hint);
    }
    // Nothing written, and no wake connection opened.
    expect(await keyspace()).toEqual(before);
    expect(String(await conn.command('CLIENT', 'LIST')).split('\n').length).toBe(String(clients).split('\n').length);
  });

  it('the same options spelled our way start a worker', async () => {
    const started = await Worker.start(queue, () => undefined, { maxAttempts: 5, leaseMs: 30_000, extendEveryMs: 15_000, maintenanceMs: 1000, stalled: { maxStalled: 2 }, blockMs: 50, autorun: false });
    await started.close();
    const batched = await BatchWorker.start(queue, () => 'ok', { size: 10, shape: { minSize: 2, timeoutMs: 100 }, stalled: { maxStalled: 2 }, autorun: false });
    await batched.close();
  });
});
