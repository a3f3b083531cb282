/**
 * Chaos: the server is SIGKILLed mid-run and restarted from its AOF (`appendfsync always`) on the
 * same port. A producer enqueues one job at a time and counts a job as acknowledged only once its
 * enqueue resolved; a call the crash cut off is retried with the SAME id (enqueue is idempotent by
 * id). Every acknowledged job must be completed afterwards by the same, never-restarted worker.
 */
import { Connection, ConnectionLostError, mintId, type JobId } from '@echo/protocol/queue';
import { startRedis, uniqueName, type RedisServer } from '@echo/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { rowsLeft, sleep, until } from './helpers.js';

const connections: Connection[] = [];
const workers: Worker[] = [];
const servers: RedisServer[] = [];

afterEach(async () => {
  // Connections first: that fails whatever a stuck worker still waits on, so its close is prompt.
  for (const c of connections.splice(0)) await c.close({ immediate: true });
  await Promise.race([Promise.all(workers.splice(0).map((w) => w.close())), sleep(5_000)]);
  for (const s of servers.splice(0)) await s.stop();
});

interface Figures {
  acked: number;
  /** Retried ids whose first, cut-off enqueue had landed, ran and completed before the retry came. */
  readmitted: number;
  ackedBeforeKill: number;
  pendingAtKill: number;
  activeAtKill: number;
  completed: number;
  executions: number;
  reExecuted: number;
  lostCalls: number;
  duplicatesAfterRestart: number;
  workerErrors: number;
  downMs: number;
  drainMs: number;
  /** How long the restarted server took to replay its AOF, from its log. */
  replay: string;
}

function replayTime(server: RedisServer): string {
  const line = server.logTail(40).split('\n').filter((l) => l.includes('DB loaded from append only file')).pop() ?? '';
  return /: ([\d.]+ seconds)/.exec(line)?.[1] ?? 'unknown';
}

interface RunOptions {
  /** Enqueue under an idempotency key equal to the id (it outlives the row, unlike the id). */
  readonly dedup?: boolean;
  /** Runs right before the SIGKILL, on the producer's connection (to grow the AOF). */
  readonly beforeKill?: (conn: Connection) => Promise<void>;
}

/** One crash-and-restart run: asserts the invariants and answers the figures. */
async function crashRun(server: RedisServer, label: string, options: RunOptions = {}): Promise<Figures> {
  const name = uniqueName('aof');
  const producerConn = await Connection.connect({ url: server.url, reconnectWaitMs: 5_000 });
  connections.push(producerConn);
  const workerConn = await Connection.connect(server.url);
  connections.push(workerConn);
  const producer = await Queue.open<{ n: number }>(name, { connection: producerConn });
  const consumer = await Queue.open<{ n: number }>(name, { connection: workerConn });

  const executions = new Map<string, number>();
  const firstRunAt = new Map<string, number>();
  const runLog: string[] = [];
  const workerErrors: unknown[] = [];
  const worker = await Worker.start(
    consumer,
    async (job) => {
      executions.set(job.id, (executions.get(job.id) ?? 0) + 1);
      if (!firstRunAt.has(job.id)) firstRunAt.set(job.id, Date.now());
      runLog.push(`${Date.now()} run ${job.id} attempts=${job.attempts}`);
      // Slower than the producer, so a backlog (pending and running jobs) is there to lose.
      await sleep(20);
    },
    { concurrency: 8, leaseMs: 2_000, maintenanceMs: 100, blockMs: 200, onError: (e) => workerErrors.push(e) },
  );
  workers.push(worker);

  // The producer: one enqueue at a time; an id is acknowledged only once its enqueue resolved.
  const acked: JobId[] = [];
  // Flags the producer's loop reads; an object, as the loop runs in a closure.
  const flags = { stop: false, afterRestart: false };
  let lostCalls = 0;
  const retried = new Set<string>();
  const readmitted: string[] = [];
  let duplicatesAfterRestart = 0;
  const produce = (async () => {
    for (let n = 0; !flags.stop; n++) {
      const id = mintId('JOB');
      for (;;) {
        try {
          const verdict = await producer.enqueue({ n }, options.dedup ? { id, dedupId: id } : { id });
          if (retried.has(id)) {
            runLog.push(`${Date.now()} retry of ${id} answered ${verdict.status}`);
            // It already ran, yet the retry was admitted: the first attempt had landed and completed.
            if (verdict.status === 'enqueued' && firstRunAt.has(id)) readmitted.push(id);
          }
          if (verdict.status === 'duplicate') {
            if (!flags.afterRestart) throw new Error(`duplicate before the crash for a fresh id ${id}`);
            duplicatesAfterRestart++;
          }
          break;
        } catch (error) {
          // Cut off by the crash (in flight), or still no server after reconnectWaitMs: same id again.
          if (!(error instanceof ConnectionLostError)) throw error;
          lostCalls++;
          retried.add(id);
          runLog.push(`${Date.now()} enqueue of ${id} failed: ${String(error)}`);
        }
      }
      acked.push(id);
    }
  })();
  // If an assertion below fails first, the producer's later failure must not go unhandled.
  produce.catch(() => undefined);

  await until('400 acknowledged jobs', () => acked.length >= 400, 30_000, 5);
  await options.beforeKill?.(producerConn);
  // A burst right before the crash, so a backlog is there to lose however fast the worker is.
  const burst = await producer.enqueueMany(Array.from({ length: 200 }, (_, n) => ({ payload: { n: -n }, id: mintId('JOB') })));
  for (const verdict of burst) {
    if (verdict.status !== 'enqueued') throw new Error(`burst enqueue answered ${verdict.status}`);
    acked.push(verdict.id);
  }
  const atKill = await producer.counts('pending', 'active');
  const ackedBeforeKill = acked.length;
  const downAt = Date.now();
  await server.kill('SIGKILL');
  flags.afterRestart = true;
  await sleep(200);
  await server.restart();
  // The producer must make progress again on its own: 400 more acknowledgements.
  try {
    await until('400 acknowledgements after the restart', () => acked.length >= ackedBeforeKill + 400, 20_000, 5);
  } catch (error) {
    flags.stop = true;
    const states = `producer connection ${producerConn.status}, worker connection ${workerConn.status}; AOF replay ${replayTime(server)}`;
    throw new Error(`${(error as Error).message} (acked ${acked.length - ackedBeforeKill} since the crash; ${states})`, { cause: error });
  }
  const downMs = Date.now() - downAt;
  flags.stop = true;
  await produce;

  const drainStarted = Date.now();
  await until('every acknowledged job completed', async () => (await rowsLeft(producerConn, producer, acked)) === 0, 30_000, 100);
  // The backlog was real: there were jobs waiting and running to lose.
  expect(atKill.pending).toBeGreaterThan(0);
  const drainMs = Date.now() - drainStarted;
  const counts = await producer.counts('completed', 'pending', 'active', 'scheduled', 'dead');
  const figures: Figures = {
    acked: acked.length,
    readmitted: readmitted.length,
    ackedBeforeKill,
    pendingAtKill: atKill.pending,
    activeAtKill: atKill.active,
    completed: counts.completed,
    executions: [...executions.values()].reduce((a, b) => a + b, 0),
    reExecuted: [...executions.values()].filter((n) => n > 1).length,
    lostCalls,
    duplicatesAfterRestart,
    workerErrors: workerErrors.length,
    downMs,
    drainMs,
    replay: replayTime(server),
  };
  console.log(`[chaos:aof-restart:${label}] ${JSON.stringify(figures)}`);
  const interesting = new Set([...retried, ...[...executions].filter(([, n]) => n > 1).map(([id]) => id)]);
  console.log(runLog.filter((line) => [...interesting].some((id) => line.includes(id))).join('\n'));

  // The worker rode out the crash by itself: it is the same instance, never stopped.
  expect(worker.fatalError).toBeUndefined();
  // Every acknowledged job ran, and is completed: its row is gone and it sits in no set.
  expect(acked.filter((id) => !executions.has(id))).toEqual([]);
  expect({ pending: counts.pending, active: counts.active, scheduled: counts.scheduled, dead: counts.dead }).toEqual({
    pending: 0,
    active: 0,
    scheduled: 0,
    dead: 0,
  });
  // Every id the producer sent was eventually acknowledged, so completions match exactly, except
  // for re-admissions: completion deletes the row, and with it the id's idempotency, so a retry that
  // arrives after the first (landed) attempt already completed is admitted and runs again. Anything
  // beyond that would be a completion accepted twice; anything below, a lost job.
  expect(counts.completed).toBe(acked.length + readmitted.length);
  // An idempotency key outlives the row: under one, a retry is never admitted twice.
  if (options.dedup) expect(readmitted).toEqual([]);
  await worker.close();
  return figures;
}

describe('chaos: server SIGKILL and restart from the AOF', () => {
  it('keeps every acknowledged job and completes it with the same worker', async () => {
    const server = await startRedis({ persistence: 'aof', readyTimeoutMs: 20_000 });
    servers.push(server);
    await crashRun(server, 'plain');
  }, 90_000);

  it('admits each job once when the producer enqueues under an idempotency key', async () => {
    const server = await startRedis({ persistence: 'aof', readyTimeoutMs: 20_000 });
    servers.push(server);
    await crashRun(server, 'dedup', { dedup: true });
  }, 90_000);

  it('rides out a restart whose AOF replay takes a while (clients reconnect while it is LOADING)', async () => {
    // key-load-delay (a Redis debug knob, µs per key) stands in for a big dataset: the replay of the
    // filler below takes about a second, and reconnecting clients are answered `-LOADING` meanwhile.
    const server = await startRedis({ persistence: 'aof', readyTimeoutMs: 30_000, args: ['--key-load-delay', '200'] });
    servers.push(server);
    await crashRun(server, 'slow-replay', {
      beforeKill: async (conn) => {
        const filler = Array.from({ length: 5_000 }, (_, i) => ['SET', `chaos:{filler}:${i}`, 'x'] as const);
        for (const r of await conn.pipeline(filler)) if (!r.ok) throw r.error;
      },
    });
  }, 90_000);
});
