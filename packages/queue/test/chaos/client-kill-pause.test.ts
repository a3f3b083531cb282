/**
 * Chaos: the server drops every normal client twice (`CLIENT KILL TYPE normal`) and stalls every
 * command once (`CLIENT PAUSE 500 ALL`) while a worker consumes. The worker must ride it all out by
 * itself: reconnect, re-fence, resend cut-off settlements, and complete every job exactly once.
 */
import { Connection, type JobId } from '@echo/protocol/queue';
import { startRedis, uniqueName, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker, type ClaimedJob, type QueueEvents, type WorkerStats } from '../../src/index.js';
import { EventTally, occurrences, rowsLeft, sleep, until } from './helpers.js';

const JOBS = 2_000;

interface ConsumerOptions {
  readonly leaseMs: number;
  readonly maintenanceMs: number;
  readonly blockMs: number;
  readonly onError: (error: unknown) => void;
}

let server: RedisServer;
let admin: Redis;
let conn: Connection;
/** What the test reads of either consumer. */
interface Consumer {
  stats(): Readonly<WorkerStats>;
  readonly fatalError: Error | undefined;
  close(): Promise<void>;
}

let worker: Consumer | undefined;
let events: QueueEvents | undefined;

beforeAll(async () => {
  server = await startRedis();
  admin = server.client();
  conn = await Connection.connect(server.url);
});

afterAll(async () => {
  // The connection first: a worker stuck on it (when a test failed) then stops at once.
  await conn.close({ immediate: true });
  await worker?.close();
  await events?.close();
  admin.disconnect();
  await server.stop();
});

describe('chaos: CLIENT KILL and CLIENT PAUSE under a running worker', () => {
  // The one-by-one Worker coalesces its slots' settlements and claims into rounds; the BatchWorker
  // keeps several batches in flight, each claimed together with the previous one's settlement.
  const consumers: [string, (queue: Queue<{ n: number }>, run: (job: ClaimedJob<{ n: number }>) => Promise<void>, options: ConsumerOptions) => Promise<Consumer>][] = [
    ['Worker', (queue, run, options) => Worker.start(queue, run, { ...options, concurrency: 8 })],
    [
      'BatchWorker with 3 batches in flight',
      (queue, run, options) =>
        BatchWorker.start(
          queue,
          async (jobs): Promise<'ok'> => {
            await Promise.all(jobs.map(run));
            return 'ok';
          },
          { ...options, size: 8, concurrency: 3 },
        ),
    ],
  ];
  it.each(consumers)(`completes ${JOBS} jobs exactly once through two client kills and a pause (%s)`, async (_name, start) => {
    const started = Date.now();
    const queue = await Queue.open<{ n: number }>(uniqueName('kill'), { connection: conn });
    const tally = new EventTally();
    events = await queue.events();
    events.on(tally.listener);
    const verdicts = await queue.enqueueMany(Array.from({ length: JOBS }, (_, n) => ({ payload: { n } })));
    const ids = verdicts.map((v) => v.id as JobId);
    expect(verdicts.every((v) => v.status === 'enqueued')).toBe(true);

    const executions = new Map<string, number>();
    const errors: string[] = [];
    const w = await start(
      queue,
      async (job) => {
        executions.set(job.id, (executions.get(job.id) ?? 0) + 1);
        await sleep(10);
      },
      {
        leaseMs: 1_000,
        maintenanceMs: 100,
        blockMs: 200,
        onError: (error) => errors.push(error instanceof Error ? error.constructor.name : String(error)),
      },
    );
    worker = w;

    // The chaos, triggered by progress so it always lands mid-run.
    const chaos: string[] = [];
    const at = async (completed: number): Promise<void> => {
      await until(`${completed} completions`, () => w.stats().completed >= completed, 30_000, 5);
    };
    await at(300);
    chaos.push(`kill@${w.stats().completed}: ${String(await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'))} clients`);
    await at(800);
    chaos.push(`pause@${w.stats().completed}: ${String(await admin.call('CLIENT', 'PAUSE', 500, 'ALL'))}`);
    await at(1_300);
    chaos.push(`kill@${w.stats().completed}: ${String(await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'))} clients`);

    // The end: read through the admin client, which the kills skip.
    await until(
      `metrics completed = ${JOBS}`,
      async () => Number(await admin.hget(queue.keys.metricsCompleted, 'count')) >= JOBS,
      30_000,
      50,
    );
    await until('the last completed events', () => tally.completed.size >= JOBS, 2_000).catch(() => undefined);
    const runMs = Date.now() - started;

    const final = await queue.counts('completed', 'pending', 'active', 'scheduled', 'dead');
    const rows = await rowsLeft(conn, queue, ids);
    const runs = [...executions.values()];
    const figures = {
      jobs: JOBS,
      chaos,
      runMs,
      completed: final.completed,
      rowsLeft: rows,
      executions: runs.reduce((a, b) => a + b, 0),
      reExecuted: runs.filter((n) => n > 1).length,
      worker: w.stats(),
      reconnects: queue.connection.stats().reconnects,
      completedEvents: tally.completed.size,
      doubleEvents: tally.twice().length,
      missingEvents: tally.missing(ids).length,
      errors: Object.fromEntries(occurrences(errors)),
    };
    console.log(`[chaos:client-kill-pause] ${JSON.stringify(figures)}`);

    // Nothing was restarted: the same worker is still healthy.
    expect(w.fatalError).toBeUndefined();
    expect(queue.connection.stats().reconnects).toBeGreaterThanOrEqual(1);
    // Every job completed, once: nothing left anywhere, the counter exact, no id reported twice.
    expect({ pending: final.pending, active: final.active, scheduled: final.scheduled, dead: final.dead }).toEqual({
      pending: 0,
      active: 0,
      scheduled: 0,
      dead: 0,
    });
    expect(rows).toBe(0);
    expect(ids.filter((id) => !executions.has(id))).toEqual([]);
    expect(final.completed).toBe(JOBS);
    expect(tally.twice()).toEqual([]);
    // The worker never counts more completions than the store accepted. (It may count fewer: a
    // completion whose reply a kill cut off is resent, and a `gone` answer to the resend cannot
    // prove the first one landed; see partition.test.ts.)
    expect(w.stats().completed).toBeLessThanOrEqual(JOBS);
    await w.close();
  }, 90_000);
});
