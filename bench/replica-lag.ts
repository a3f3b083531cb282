/**
 * What `durability: 'replicated'` buys when the replica lags. On loopback the replication stream
 * reaches the replica in the same turn as the client's reply, so a SIGKILLed primary loses nothing
 * either way; here a link proxy from the testkit sits between the primary and its replica and opens
 * the window on purpose:
 *
 * - `held`: the proxy keeps the whole stream while producers enqueue for `--hold-ms`, then the
 *   primary is SIGKILLed with the stream still held (a replica cut off, or far behind);
 * - `lagged`: the stream reaches the replica `--lag-ms` late while producers enqueue for
 *   `--hold-ms`, then the primary is SIGKILLed (a slow link).
 *
 * Then the replica is promoted (`REPLICAOF NO ONE`) and every enqueue the producers saw acknowledged
 * is looked up on it: lost = acknowledged and absent. Each scenario runs once with
 * `durability: 'primary'` and once with `'replicated'` (WAIT 1 after each admission, 1 s timeout),
 * each on fresh servers.
 *
 *   pnpm bench:replica-lag                      # hold 2 s, lag 100 ms, 8 producers in flight
 *   pnpm bench:replica-lag --hold-ms 1000 --lag-ms 50 --inflight 4
 */
import { Connection, EchoError, mintId, type JobId } from '@echo/protocol/extend';
import { Queue } from '@echo/queue';
import { startLinkProxy, startRedis, waitFor, type LinkProxy, type RedisServer } from '@echo/testkit';
import { intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';

const HOLD_MS = intOption('hold-ms', 2_000);
const LAG_MS = intOption('lag-ms', 100);
const INFLIGHT = intOption('inflight', 8);

type Scenario = 'held' | 'lagged';

interface Outcome {
  readonly scenario: Scenario;
  readonly durability: 'primary' | 'replicated';
  readonly attempted: number;
  readonly acknowledged: number;
  readonly lost: number;
  /** Enqueues that failed, by error class. */
  readonly errors: Record<string, number>;
  /** Failed enqueues whose job nevertheless reached the promoted replica. */
  readonly failedButThere: number;
  readonly untyped: number;
  readonly ackP50Ms: number;
  readonly ackMaxMs: number;
}

async function linked(replica: RedisServer): Promise<void> {
  const client = replica.client();
  try {
    await waitFor(async () => (await client.info('replication')).includes('master_link_status:up'), { what: 'replica linked', timeoutMs: 15_000 });
  } finally {
    client.disconnect();
  }
}

/** Which of `ids` have a job row on `server`. */
async function present(server: RedisServer, queue: Queue<number>, ids: readonly JobId[]): Promise<Set<JobId>> {
  const client = server.client();
  const out = new Set<JobId>();
  try {
    for (let at = 0; at < ids.length; at += 1000) {
      const chunk = ids.slice(at, at + 1000);
      const replies = await client.pipeline(chunk.map((id) => ['exists', queue.keys.job(id)])).exec();
      replies?.forEach(([, value], i) => {
        if (Number(value) === 1) out.add(chunk[i] as JobId);
      });
    }
  } finally {
    client.disconnect();
  }
  return out;
}

async function run(scenario: Scenario, durability: 'primary' | 'replicated'): Promise<Outcome> {
  const primary = await startRedis({ args: ['--repl-diskless-sync-delay', '0'] });
  const proxy: LinkProxy = await startLinkProxy({ target: primary });
  const replica = await startRedis({ args: ['--replicaof', proxy.host, String(proxy.port)] });
  const conn = await Connection.connect(primary.url);
  try {
    await linked(replica);
    const queue = await Queue.open<number>(`lag-${scenario}`, { connection: conn, durability });
    // The fence key and the queue's first job reach the replica before the window opens.
    await queue.enqueue(0);
    const admin = primary.client();
    await admin.call('WAIT', '1', '5000');
    admin.disconnect();
    if (scenario === 'held') proxy.hold();
    else proxy.lag(LAG_MS);
    const acked: JobId[] = [];
    const failed: JobId[] = [];
    const ackMs: number[] = [];
    const errors: Record<string, number> = {};
    let untyped = 0;
    let attempted = 0;
    const stopAt = Date.now() + HOLD_MS;
    const producers = Array.from({ length: INFLIGHT }, async () => {
      while (Date.now() < stopAt) {
        const id = mintId('JOB');
        attempted++;
        const t0 = performance.now();
        try {
          await queue.enqueue(1, { id });
          acked.push(id);
          ackMs.push(performance.now() - t0);
        } catch (error) {
          failed.push(id);
          const name = error instanceof Error ? error.constructor.name : typeof error;
          errors[name] = (errors[name] ?? 0) + 1;
          if (!(error instanceof EchoError)) untyped++;
        }
      }
    });
    await Promise.all(producers);
    // The primary dies with the window open: what the proxy still holds (or delays) never arrives.
    await primary.kill('SIGKILL');
    const promote = replica.client();
    await promote.call('REPLICAOF', 'NO', 'ONE');
    promote.disconnect();
    const there = await present(replica, queue, [...acked, ...failed]);
    const sorted = [...ackMs].sort((a, b) => a - b);
    return {
      scenario,
      durability,
      attempted,
      acknowledged: acked.length,
      lost: acked.filter((id) => !there.has(id)).length,
      errors,
      failedButThere: failed.filter((id) => there.has(id)).length,
      untyped,
      ackP50Ms: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
      ackMaxMs: sorted.at(-1) ?? Number.NaN,
    };
  } finally {
    await conn.close({ immediate: true });
    await proxy.close();
    await replica.stop();
    await primary.stop();
  }
}

async function main(): Promise<void> {
  const outcomes: Outcome[] = [];
  for (const scenario of ['held', 'lagged'] as const) {
    for (const durability of ['primary', 'replicated'] as const) {
      const o = await run(scenario, durability);
      progress(`${scenario}/${durability}: ${o.acknowledged} acknowledged, ${o.lost} lost, errors ${JSON.stringify(o.errors)}`);
      outcomes.push(o);
    }
  }
  const label = (s: Scenario): string => (s === 'held' ? `stream held ${HOLD_MS} ms` : `stream ${LAG_MS} ms late for ${HOLD_MS} ms`);
  const ms = (v: number): string => (Number.isNaN(v) ? '-' : v.toFixed(1));
  const rows = outcomes.map((o) => [
    label(o.scenario),
    `\`${o.durability}\``,
    String(o.attempted),
    String(o.acknowledged),
    `**${o.lost}**`,
    Object.keys(o.errors).length === 0 ? '0' : Object.entries(o.errors).map(([k, n]) => `${n} ${k}`).join(', '),
    String(o.failedButThere),
    `${ms(o.ackP50Ms)} / ${ms(o.ackMaxMs)}`,
  ]);
  const report = [
    `# The replication window, opened on purpose: SIGKILL the primary, promote the replica`,
    '',
    `One primary, one replica behind the testkit's link proxy, ${INFLIGHT} enqueues in flight; fresh servers per row.`,
    'Lost: acknowledged to the producer, absent on the promoted replica. Failed but there: an enqueue that failed whose job reached the replica anyway (a resend by id is then a no-op).',
    '',
    table(['window', 'durability', 'enqueues', 'acknowledged', 'lost', 'failed (typed)', 'failed but there', 'ack p50 / max, ms'], rows),
  ].join('\n');
  publish('replica-lag.md', report);
  const broken = outcomes.filter((o) => (o.durability === 'replicated' && o.lost > 0) || o.untyped > 0);
  if (broken.length > 0) {
    progress(`replicated lost acknowledged jobs, or an enqueue failed untyped: ${JSON.stringify(broken)}`);
    process.exitCode = 1;
  }
}

await main();
