/**
 * Echo demo: a producer and a pool of workers over a realistic job mix, with a live progress bar
 * and a closing summary; then the bus (an audit stream, a time window, a consumer group) and the
 * keyed cache (one load for a herd of misses across two caches, coherence, tags); then where to
 * look next. Uses REDIS_URL when set, otherwise starts a throwaway redis-server through
 * @echo/testkit and stops it at the end.
 *
 *   pnpm demo                 # throwaway server
 *   pnpm demo --keep          # then leave the server, its data and a dashboard up until Ctrl-C
 *   REDIS_URL=redis://127.0.0.1:6379 pnpm demo
 *   DEMO_JOBS=500 pnpm demo   # a smaller run
 */
import { Connection, type JobId } from '@echo/protocol';
import { BatchWorker, exponential, Queue, Worker, type BatchVerdict, type ClaimedJob } from '@echo/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { busDemo } from './demo-bus.js';
import { cacheDemo } from './demo-cache.js';
import { nextStop, startDashboard } from './demo-keep.js';

interface OrderJob {
  readonly order: number;
  /** What the handler will do with it, so the mix is reproducible. */
  readonly kind: 'ok' | 'flaky' | 'slow' | 'poison';
}

const TOTAL = Number(process.env.DEMO_JOBS ?? 5000);
const KEEP = process.argv.includes('--keep');
const WORKERS = 3;
const suffix = Date.now().toString(36);
const queueName = `demo.orders.${suffix}`;
/** A second queue, fed by a scheduler, so the dashboard's scheduler view has one that fires. */
const reportsName = `demo.reports.${suffix}`;
const namespaceName = `demo.customers.${suffix}`;
/** A declared cache table, so the dashboard's cache tables list one. */
const tableName = `demo.accounts.${suffix}`;

function kindOf(i: number): OrderJob['kind'] {
  if (i === 42) return 'poison';
  if (i % 25 === 0) return 'flaky';
  if (i % 40 === 0) return 'slow';
  return 'ok';
}

/** The job's name, as the dashboard and `emq` show it: what it does. */
function nameOf(kind: OrderJob['kind']): string {
  if (kind === 'slow') return 'ship-bulky';
  if (kind === 'flaky') return 'charge-card';
  return 'ship-order';
}

const flakyFailures = new Map<JobId, number>();

async function handle(job: ClaimedJob<OrderJob>): Promise<string> {
  const { kind, order } = job.payload;
  if (kind === 'poison') throw new Error(`order ${order} is malformed`);
  if (kind === 'flaky' && job.attempts < 2) {
    flakyFailures.set(job.id, (flakyFailures.get(job.id) ?? 0) + 1);
    throw new Error(`payment gateway timeout for order ${order}`);
  }
  if (kind === 'slow') await new Promise((r) => setTimeout(r, 20));
  return `shipped ${order}`;
}

function bar(done: number, total: number, width = 32): string {
  const filled = Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total}`;
}

/** How long the progress bar may stand still before the demo gives up (a job it can never finish). */
const STALL_MS = 30_000;

/** Something the demo holds, released once: at its place in the run, or by the final sweep. */
type Release = () => Promise<void>;

/**
 * Runs the demo; whatever it started (server, connection, workers, listener, dashboard) is given
 * back in `finally`, last started first, so a failure midway does not leave the process running.
 */
async function main(): Promise<void> {
  const held: Release[] = [];
  const own = (release: () => Promise<unknown>): Release => {
    let done: Promise<void> | undefined;
    const once: Release = () => (done ??= release().then(() => undefined));
    held.push(once);
    return once;
  };
  try {
    await run(own);
  } finally {
    for (const release of held.reverse()) await release().catch((error: unknown) => console.error('demo: teardown:', error));
  }
}

async function run(own: (release: () => Promise<unknown>) => Release): Promise<void> {
  let server: RedisServer | undefined;
  const url = process.env.REDIS_URL ?? (server = await startRedis()).url;
  const stopServer = own(async () => server?.stop());
  console.log(`Echo demo on ${url}${server ? ' (throwaway server from @echo/testkit)' : ''}\n`);
  const conn = await Connection.connect(url);
  const closeConn = own(() => conn.close());
  // Every finished job is kept (the completed tab lists them), and each attempt and minute is counted,
  // so every view of the dashboard has something to show after the run.
  const orders = await Queue.open<OrderJob>(queueName, { connection: conn, keep: { completed: { count: TOTAL }, failed: { count: 1_000 } } });
  await orders.setEvents({ history: 10, minutes: 180 });
  const reports = await Queue.open<{ report: string }>(reportsName, { connection: conn, keep: { completed: { count: 100 } } });
  await reports.setEvents({ history: 10, minutes: 180 });
  await reports.upsertScheduler('stock-report', { everyMs: 2_000, firstInMs: 0 }, { report: 'stock' }, {});
  const reporter = await Worker.start(reports, (job) => `report ${job.payload.report} ready`, { maintenanceMs: 200, blockMs: 200 });
  const closeReporter = own(() => reporter.close());
  const events = await orders.events();
  const closeEvents = own(() => events.close());
  let completed = 0;
  let retried = 0;
  let dead = 0;
  events.on((event) => {
    if (event.event === 'completed') completed++;
    else if (event.event === 'failed' && event.fields.outcome === 'dead') dead++;
    else if (event.event === 'failed') retried++;
  });

  const started = Date.now();
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, () =>
      Worker.start(orders, handle, { concurrency: 16, maxAttempts: 3, backoff: exponential(20, 200), maintenanceMs: 50, blockMs: 200 }),
    ),
  );
  const closeWorkers = own(() => Promise.all(workers.map((w) => w.close())));
  const batch = await BatchWorker.start(
    orders,
    async (jobs) => {
      const verdicts = new Map<string, BatchVerdict>();
      await Promise.all(
        jobs.map((job) =>
          handle(job).then(
            () => verdicts.set(job.id, 'ok'),
            (error: unknown) => verdicts.set(job.id, { error: error instanceof Error ? error.message : String(error) }),
          ),
        ),
      );
      return verdicts;
    },
    { size: 50, maxAttempts: 3, backoff: exponential(20, 200), maintenanceMs: 50, blockMs: 200 },
  );
  const closeBatch = own(() => batch.close());

  // The producer: most orders now, a tenth scheduled a little later, in pipelined batches.
  // Each order carries a name and a business key (`order-<n>`), found by the dashboard's search.
  const now: { payload: OrderJob; name: string; key: string }[] = [];
  for (let i = 0; i < TOTAL; i++) {
    const kind = kindOf(i);
    if (i % 10 === 7) await orders.enqueue({ order: i, kind }, { delayMs: 200 + (i % 300), name: nameOf(kind), key: `order-${String(i)}` });
    else now.push({ payload: { order: i, kind }, name: nameOf(kind), key: `order-${String(i)}` });
  }
  await orders.enqueueMany(now);

  const interactive = process.stdout.isTTY;
  let lastLine = '';
  let moved = { done: -1, at: Date.now() };
  for (;;) {
    const counts = await orders.counts('pending', 'active', 'scheduled', 'completed', 'dead');
    const finished = counts.completed + counts.dead;
    if (finished !== moved.done) moved = { done: finished, at: Date.now() };
    else if (Date.now() - moved.at > STALL_MS) throw new Error(`demo: no job finished for ${String(STALL_MS / 1000)} s (${String(finished)} of ${String(TOTAL)} done)`);
    const line = `${bar(counts.completed + counts.dead, TOTAL)}  active ${String(counts.active).padStart(3)}  scheduled ${String(counts.scheduled).padStart(4)}  dead ${counts.dead}`;
    if (interactive) process.stdout.write(`\r${line}`);
    else if (line !== lastLine && (counts.completed + counts.dead) % 1000 < 200) console.log(line);
    lastLine = line;
    if (counts.completed + counts.dead >= TOTAL) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (Date.now() - started) / 1000;
  if (interactive) process.stdout.write('\n');

  await Promise.all([closeWorkers(), closeBatch()]);
  await new Promise((r) => setTimeout(r, 50));
  const [deadJob] = (await conn.command('ZRANGE', orders.keys.dead, 0, 0)) as JobId[];
  const poison = deadJob ? await orders.getJob(deadJob) : undefined;
  const final = await orders.counts('completed', 'failed', 'pending', 'active', 'scheduled', 'dead');

  console.log('\nSummary');
  console.log(`  jobs          ${TOTAL} in ${seconds.toFixed(2)} s  (${Math.round(TOTAL / seconds)} jobs/s, ${WORKERS} workers x 16 + 1 batch worker)`);
  console.log(`  completed     ${final.completed}`);
  console.log(`  retries       ${retried} (flaky orders failing once before shipping, and the poison order's first two attempts)`);
  console.log(`  dead-lettered ${final.dead}${poison ? `: ${poison.id} after ${poison.attempts} attempts, last_error "${poison.lastError ?? ''}"` : ''}`);
  console.log(`  events seen   ${completed} completed, ${dead} dead`);
  console.log(`  left behind   pending ${final.pending}, active ${final.active}, scheduled ${final.scheduled}`);
  console.log(`  wire          ${conn.stats().evalshaCalls} EVALSHA calls, ${conn.stats().scriptLoads} script loads`);

  await busDemo(conn, queueName, KEEP);
  await cacheDemo(conn, { namespace: namespaceName, table: tableName }, KEEP);

  await closeEvents();
  if (!KEEP) {
    await closeReporter();
    await reports.removeScheduler('stock-report');
    await reports.pause();
    await reports.obliterate({ force: true });
    await orders.pause();
    await orders.obliterate({ force: true });
  }
  if (final.completed + final.dead !== TOTAL || final.dead !== 1) {
    console.error('demo: unexpected totals');
    process.exitCode = 1;
  }

  console.log('\nNext');
  console.log('  docs          pnpm docs:dev: getting started per pillar, guides from BullMQ, bentocache and Redis Streams (docs/)');
  if (!KEEP) {
    console.log('  look inside   pnpm demo --keep: the same run, then this server and a dashboard stay up until Ctrl-C');
    console.log(`  emq           REDIS_URL=<your server> pnpm --silent emq queues   (then: jobs <queue> --state dead, retry, streams, lag)`);
  } else {
    const emq = `REDIS_URL=${url} pnpm --silent emq`;
    const dashboard = await startDashboard(url);
    const stopDashboard = own(() => dashboard.stop());
    console.log(`  server        ${url}${server ? ' (throwaway, stopped on Ctrl-C)' : ''}`);
    console.log(`  dashboard     ${dashboard.url}`);
    for (const [what, hash] of deepLinks(poison?.id)) console.log(`    ${what.padEnd(19)}${dashboard.url}${hash}`);
    console.log(`  emq           ${emq} jobs ${queueName} --state dead`);
    console.log(`                ${emq} queues | streams | lag ${queueName} audit`);
    console.log('  Ctrl-C stops the dashboard and the server.');
    const reason = await nextStop();
    console.log(`\n${reason === 'orphaned' ? 'the process that started the demo is gone' : reason}: stopping`);
    // Ctrl-C in a terminal signals the whole foreground group: the throwaway redis-server and the
    // dashboard got the same SIGINT and are stopping too, so a close that still talks to the server
    // could wait for it forever. Past a bound, stop the server's process and leave.
    const bound = setTimeout(() => {
      console.error('demo: the server went away with the interrupt; leaving without closing its connections');
      void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
    }, 5_000);
    bound.unref();
    await stopDashboard();
    await closeReporter();
  }
  await closeConn();
  await stopServer();
}

/** The dashboard's views of what the demo left, as deep links (the dashboard's hash routes). */
function deepLinks(poisonId: string | undefined): [string, string][] {
  const q = encodeURIComponent(queueName);
  return [
    ['completed jobs', `#/queue/${q}/completed`],
    ['dead jobs', `#/queue/${q}/dead`],
    ...(poisonId === undefined ? [] : ([['attempt history', `#/queue/${q}/job/${poisonId}`]] as [string, string][])),
    ['by business key', `#/queue/${q}/search/order-42`],
    ['scheduler', `#/queue/${encodeURIComponent(reportsName)}/scheduled`],
    ['stream dead letter', `#/stream/${q}/audit/dead-letters`],
    ['cache namespace', `#/namespace/${encodeURIComponent(namespaceName)}`],
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
