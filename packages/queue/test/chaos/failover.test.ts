/**
 * Chaos: a Redis Cluster master is SIGKILLed under load and its replica promoted. Producers and
 * workers on its slots must see only typed errors, every settlement cut off by the kill must be
 * resent once the replica serves (not left to wait out its 30 s lease), and each worker the
 * failover touched must report it once, with its duration.
 */
import { Connection, ConnectionLostError, EchoError, OutageReport, slot, type JobId } from '@echo/protocol/extend';
import { startCluster, uniqueName, type RedisCluster, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { rowsLeft, sleep, until } from './helpers.js';

const LEASE_MS = 30_000;

let cluster: RedisCluster;
let conn: Connection;
const workers: Worker[] = [];

beforeAll(async () => {
  cluster = await startCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 2_000 });
  conn = await Connection.connect({ cluster: cluster.seeds });
}, 60_000);

afterAll(async () => {
  await conn.close({ immediate: true });
  await Promise.all(workers.map((w) => w.close()));
  await cluster.stop();
});

/** `count` queue names whose keys live on `master` (or, with `not`, anywhere else). */
async function queuesOn(master: RedisServer, count: number, not = false): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const name = uniqueName('fo');
    const probe = await Queue.open(name, { connection: conn });
    if (((await cluster.masterOf(slot(probe.keys.pending))) === master) !== not) out.push(name);
  }
  return out;
}

/** One queue under load: a producer that retries what did not reach a primary, and a worker. */
interface Lane {
  readonly queue: Queue<number>;
  readonly worker: Worker<number>;
  readonly produced: JobId[];
  readonly producerErrors: unknown[];
  readonly workerErrors: unknown[];
}

describe('chaos: a cluster master SIGKILLed under running workers', () => {
  it('sees typed errors only, resends cut-off settlements, and reports the failover once per worker', async () => {
    const victim = cluster.masters[0] as RedisServer;
    const names = [...(await queuesOn(victim, 2)), ...(await queuesOn(victim, 2, true))];
    const executions = new Map<string, number>();
    const completedAt = new Map<string, number>();
    let producing = true;

    const lanes: Lane[] = await Promise.all(
      names.map(async (name) => {
        const queue = await Queue.open<number>(name, { connection: conn });
        const workerErrors: unknown[] = [];
        const worker = await Worker.start(
          queue,
          async (job) => {
            executions.set(job.id, (executions.get(job.id) ?? 0) + 1);
            await sleep(5);
            completedAt.set(job.id, Date.now());
          },
          { concurrency: 4, leaseMs: LEASE_MS, maintenanceMs: 250, blockMs: 200, onError: (e) => workerErrors.push(e) },
        );
        workers.push(worker);
        return { queue, worker, produced: [], producerErrors: [], workerErrors };
      }),
    );
    const producers = lanes.map(async (lane) => {
      let n = 0;
      while (producing) {
        const id = `${lane.queue.name}-${n++}`;
        // Enqueue is idempotent by id: a call that may or may not have landed is simply sent again.
        for (;;) {
          try {
            const verdict = await lane.queue.enqueue(n, { dedupId: id });
            lane.produced.push(verdict.status === 'duplicate' ? verdict.existingId : verdict.id);
            break;
          } catch (error) {
            lane.producerErrors.push(error);
            if (!(error instanceof ConnectionLostError)) break;
            await sleep(50);
          }
        }
        await sleep(5);
      }
    });

    await until('work flowing', () => completedAt.size >= 200, 15_000);
    const failover = await cluster.failover(victim, { timeoutMs: 20_000 });
    await sleep(1_000);
    producing = false;
    await Promise.all(producers);
    const ids = lanes.flatMap((lane) => lane.produced);
    // The bound is a hang's: a loaded machine may drain slowly, and the test judges below whether a
    // job waited out its lease. Jobs still missing after 15 s are named, with their rows, to tell a
    // slow drain from a stuck lease when it happens.
    const ran = (): boolean => ids.every((id) => completedAt.has(id));
    await until('every produced job ran', ran, 15_000).catch(async () => {
      const missing = ids.filter((id) => !completedAt.has(id));
      const rowOf = async (id: JobId): Promise<unknown> => {
        const lane = lanes.find((l) => l.produced.includes(id));
        return lane === undefined ? null : conn.command('HGETALL', lane.queue.keys.job(id));
      };
      const sample = await Promise.all(missing.slice(0, 5).map(async (id) => [id, await rowOf(id)]));
      console.log(JSON.stringify({ slowDrain: { missing: missing.length, sample } }));
      await until('every produced job ran', ran, LEASE_MS + 15_000);
    });
    const drainedAt = Date.now();
    // Rows leave with their completion: none may be stuck waiting out a lease.
    for (const lane of lanes) await until(`${lane.queue.name} settled`, async () => (await rowsLeft(conn, lane.queue, lane.produced)) === 0, 5_000);

    // A worker closes its outage after calls have got through quietly for a while (3 s after the
    // last error, found by a probe): wait for the report. What is judged is that it comes, once per
    // outage; with two CPU hogs and other work beside the run it took over 30 s, and once (the whole
    // CI beside two hogs, 2026-12-03) over 60 s, so the bound is a hang's, not a speed. A worker
    // opens an outage at the first call that did not reach a primary; one whose calls the cluster
    // client all held and resent once the replica served heard no error and has nothing to report
    // (seen once under two hogs, 2026-12-04: a worker on the killed master heard nothing in 150 s
    // while every job ran). So every outage a worker on the killed master opened must end in its
    // report, and at least one of those two workers must have heard the failover, unless neither did.
    const victims = lanes.slice(0, 2);
    const opened = (lane: Lane): boolean => lane.workerErrors.some((e) => e instanceof OutageReport);
    const ended = (lane: Lane): boolean => lane.workerErrors.some((e) => e instanceof OutageReport && !e.ongoing);
    const settled = (): boolean => victims.every((lane) => ended(lane) || !opened(lane));
    await until("the killed master's workers reported their outages' ends", () => settled() && victims.some(ended), 150_000).catch((error: unknown) => {
      if (settled() && !victims.some(opened)) {
        // Nothing reached either worker as an error: there is no report to judge, and the run says so.
        console.log(JSON.stringify({ silentVictims: victims.map((lane) => lane.queue.name) }));
        return;
      }
      // What kept an outage open: the errors each worker heard, last first.
      const heard = victims.map((lane) => lane.workerErrors.slice(-8).map((e) => (e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e))));
      throw new Error(`${String(error)}; last errors heard: ${JSON.stringify(heard)}`);
    });
    const twice = [...executions].filter(([, n]) => n > 1).map(([id]) => id);
    const producerErrors = lanes.flatMap((lane) => lane.producerErrors);
    const workerErrors = lanes.flatMap((lane) => lane.workerErrors);
    const reports = lanes.map((lane) => lane.workerErrors.filter((e): e is OutageReport => e instanceof OutageReport));
    const byClass = (errors: unknown[]): Record<string, number> =>
      errors.reduce<Record<string, number>>((acc, e) => {
        const name = e instanceof Error ? e.constructor.name : typeof e;
        acc[name] = (acc[name] ?? 0) + 1;
        return acc;
      }, {});
    console.log(
      JSON.stringify({
        failoverMs: failover.healedAt - failover.killedAt,
        jobs: ids.length,
        lastJobAfterHealMs: drainedAt - failover.healedAt,
        ranTwice: twice.length,
        producerErrors: byClass(producerErrors),
        workerErrors: byClass(workerErrors),
        reports: reports.map((r) => r.map((o) => `${o.message} ongoing=${String(o.ongoing)}`)),
        lost: lanes.map((lane) => lane.worker.stats().lost),
      }),
    );

    for (const error of [...producerErrors, ...workerErrors]) expect(error).toBeInstanceOf(EchoError);
    for (const error of producerErrors) expect(error).toBeInstanceOf(ConnectionLostError);
    // Workers hear one report per failover, never the errors it folded in.
    for (const error of workerErrors) expect(error).toBeInstanceOf(OutageReport);
    // One outage: one end report, preceded by one ongoing report only when it lasted past the
    // funnel's threshold (5 s from the last reply; a promotion takes 2-4.4 s here).
    for (const lane of reports) {
      if (lane.length > 0) expect(lane.map((r) => r.ongoing)).toEqual(lane.length === 2 ? [true, false] : [false]);
      for (const report of lane) {
        expect(report.durationMs).toBeGreaterThan(0);
        expect(report.cause).toBeInstanceOf(ConnectionLostError);
      }
    }
    expect(twice).toEqual([]);
    expect(lanes.map((lane) => lane.worker.stats().lost)).toEqual([0, 0, 0, 0]);
    // Nothing waited out its lease. A job that did was claimed before the kill (a claim after it
    // reaches no primary, or the promoted one, whose reply is read), so it ran no earlier than one
    // lease after the kill, less the moment a claim is in flight: the last job ran before that.
    expect(drainedAt - failover.killedAt).toBeLessThan(LEASE_MS - 2_000);
  }, 300_000);
});
