/**
 * Chaos: the Sentinel-watched primary is SIGKILLed under running producers and workers and a
 * sentinel promotes its replica. The connector must follow the promoted replica; producers and
 * workers see typed errors only, nothing acknowledged is lost, and no settlement cut off by the kill
 * waits out its 30 s lease.
 */
import { Connection, ConnectionLostError, EchoError, OutageReport, type JobId } from '@echo/protocol/queue';
import { startSentinel, type SentinelGroup } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { rowsLeft, sleep, until } from './helpers.js';

const LEASE_MS = 30_000;

let group: SentinelGroup;
let conn: Connection;
let worker: Worker<number> | undefined;

beforeAll(async () => {
  group = await startSentinel({ downAfterMs: 1_000 });
  conn = await Connection.connect({ sentinel: { sentinels: group.sentinelSeeds, name: group.masterName } });
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await conn.close({ immediate: true });
  await group.stop();
});

describe('chaos: the Sentinel primary SIGKILLed under running workers', () => {
  it('follows the promoted replica with typed errors only, loses nothing, and waits out no lease', async () => {
    const queue = await Queue.open<number>('sentinel-chaos', { connection: conn });
    const executions = new Map<string, number>();
    const workerErrors: unknown[] = [];
    const producerErrors: unknown[] = [];
    const produced: JobId[] = [];
    worker = await Worker.start(
      queue,
      async (job) => {
        executions.set(job.id, (executions.get(job.id) ?? 0) + 1);
        await sleep(5);
      },
      { concurrency: 4, leaseMs: LEASE_MS, maintenanceMs: 250, blockMs: 200, onError: (e) => workerErrors.push(e) },
    );
    let producing = true;
    const producers = Array.from({ length: 2 }, async (_, p) => {
      for (let n = 0; producing; n++) {
        const dedupId = `p${p}-${n}`;
        for (;;) {
          try {
            const verdict = await queue.enqueue(n, { dedupId });
            produced.push(verdict.status === 'duplicate' ? verdict.existingId : verdict.id);
            break;
          } catch (error) {
            producerErrors.push(error);
            if (!(error instanceof ConnectionLostError)) return;
            await sleep(50);
          }
        }
        await sleep(5);
      }
    });

    await until('work flowing', () => executions.size >= 200, 15_000);
    const failover = await group.failover({ timeoutMs: 20_000 });
    await until('admissions resumed', () => produced.length > 0 && executions.has(produced.at(-1) as string), 20_000);
    const resumedAt = Date.now();
    await sleep(500);
    producing = false;
    await Promise.all(producers);
    await until('every produced job ran', () => produced.every((id) => executions.has(id)), 15_000);
    const drainedAt = Date.now();
    await until('rows settled', async () => (await rowsLeft(conn, queue, produced)) === 0, 5_000);

    const twice = [...executions].filter(([, n]) => n > 1).length;
    console.log(
      JSON.stringify({
        failoverMs: failover.healedAt - failover.killedAt,
        resumeAfterHealMs: resumedAt - failover.healedAt,
        jobs: produced.length,
        lost: produced.filter((id) => !executions.has(id)).length,
        ranTwice: twice,
        lastJobAfterHealMs: drainedAt - failover.healedAt,
        producerErrors: producerErrors.map((e) => (e as EchoError).code),
        workerErrors: workerErrors.map((e) => (e instanceof OutageReport ? e.message : String(e))),
      }),
    );
    for (const e of [...producerErrors, ...workerErrors]) expect(e).toBeInstanceOf(EchoError);
    for (const e of producerErrors) expect(e).toBeInstanceOf(ConnectionLostError);
    for (const e of workerErrors) expect(e).toBeInstanceOf(OutageReport);
    expect(worker.stats().lost).toBe(0);
    expect(drainedAt - failover.healedAt).toBeLessThan(LEASE_MS / 2);
  }, 60_000);
});
