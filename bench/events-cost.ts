/**
 * What the lifecycle events cost the server per job: bulk enqueue (enqueueMany, batches of 1,000)
 * and a one-by-one worker (concurrency 1), with the queue's events settings off (the default:
 * only completed/failed/...), chatty (waiting/active/drained too), journal (every published event
 * also appended to emq:{q}:journal), and both. One events listener is subscribed in every mode, as
 * when someone cares. Figures are per job: server commands (INFO commandstats, script-internal
 * calls included, EVALSHA itself included) and server CPU (used_cpu_sys + used_cpu_user deltas).
 * Modes are interleaved within each round. On a shared machine the CPU figure is noisy: rerun it
 * on a quiet one before quoting it.
 *
 *   pnpm bench:events                 # 20,000 jobs per mode and shape, 5 rounds
 *   pnpm bench:events --quick         # a smoke run
 */
import { Connection } from '@echo/protocol';
import { Queue, Worker } from '@echo/queue';
import { startRedis, waitFor } from '@echo/testkit';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmtSpread, spread } from './lib/stats.js';

const QUICK = process.argv.includes('--quick') || boolOption('quick', false);
const JOBS = intOption('jobs', QUICK ? 2_000 : 20_000);
const BATCH = intOption('batch', 1_000);
const ROUNDS = intOption('rounds', QUICK ? 1 : 5);

type Mode = 'off' | 'chatty' | 'journal' | 'chatty+journal';
const MODES: readonly Mode[] = ['off', 'chatty', 'journal', 'chatty+journal'];
type Shape = 'bulk enqueue' | 'worker, one by one';

interface Snapshot {
  readonly calls: number;
  readonly publishes: number;
  readonly cpu: number;
}

async function snapshot(conn: Connection): Promise<Snapshot> {
  const stats = (await conn.command('INFO', 'commandstats')) as string;
  const cpu = (await conn.command('INFO', 'cpu')) as string;
  let calls = 0;
  let publishes = 0;
  for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls += Number(m[2]);
    if (m[1] === 'publish') publishes += Number(m[2]);
  }
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(cpu)?.[1] ?? 0);
  const user = Number(/used_cpu_user:([\d.]+)/.exec(cpu)?.[1] ?? 0);
  // The two INFO calls of a snapshot are counted too; subtracting them keeps the figure per job.
  return { calls: calls - 2, publishes, cpu: sys + user };
}

interface Figure {
  readonly commandsPerJob: number;
  readonly publishesPerJob: number;
  readonly cpuUsPerJob: number;
}

function per(before: Snapshot, after: Snapshot, jobs: number): Figure {
  return {
    commandsPerJob: (after.calls - before.calls - 2) / jobs,
    publishesPerJob: (after.publishes - before.publishes) / jobs,
    cpuUsPerJob: ((after.cpu - before.cpu) * 1e6) / jobs,
  };
}

async function run(conn: Connection, mode: Mode, round: number): Promise<Record<Shape, Figure>> {
  const queue = await Queue.open<number>(`evcost-${mode.replace('+', '-')}-${String(round)}`, { connection: conn });
  await queue.setEvents({ chatty: mode.includes('chatty'), journal: mode.includes('journal') ? 10_000 : null });
  const listener = await queue.events();
  let heard = 0;
  let completed = 0;
  listener.on('*', () => heard++);
  listener.on('completed', () => completed++);

  let before = await snapshot(conn);
  for (let at = 0; at < JOBS; at += BATCH) {
    await queue.enqueueMany(Array.from({ length: Math.min(BATCH, JOBS - at) }, (_, i) => ({ payload: at + i })));
  }
  const bulk = per(before, await snapshot(conn), JOBS);

  before = await snapshot(conn);
  const worker = await Worker.start(queue, () => undefined, { concurrency: 1, maintenanceMs: 0 });
  // Waits on the events heard, not on a poll, so the figure counts no read of ours.
  await waitFor(() => completed >= JOBS, { what: 'every job completed', timeoutMs: 600_000, everyMs: 20 });
  const after = await snapshot(conn);
  await worker.close();
  const one = per(before, after, JOBS);

  await listener.close();
  await queue.obliterate({ force: true }).catch(() => undefined);
  progress(`round ${String(round)} ${mode}: heard ${String(heard)}`);
  return { 'bulk enqueue': bulk, 'worker, one by one': one };
}

async function main(): Promise<void> {
  const server = await startRedis();
  const conn = await Connection.connect({ host: server.host, port: server.port });
  const results = new Map<string, Figure[]>();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of MODES) {
        const figures = await run(conn, mode, round);
        for (const [shape, figure] of Object.entries(figures)) {
          const key = `${shape}|${mode}`;
          results.set(key, [...(results.get(key) ?? []), figure]);
        }
      }
    }
  } finally {
    await conn.close();
    await server.stop();
  }
  const rows: string[][] = [];
  for (const [key, figures] of results) {
    const [shape, mode] = key.split('|') as [string, string];
    rows.push([
      shape,
      mode,
      fmtSpread(spread(figures.map((f) => f.commandsPerJob)), (v) => v.toFixed(2)),
      fmtSpread(spread(figures.map((f) => f.publishesPerJob)), (v) => v.toFixed(2)),
      fmtSpread(spread(figures.map((f) => f.cpuUsPerJob)), (v) => v.toFixed(1)),
    ]);
  }
  const md = [
    `# Lifecycle events: server cost per job`,
    ``,
    `${String(JOBS)} jobs per mode and shape, ${String(ROUNDS)} round(s), modes interleaved; one listener subscribed. Median (min-max).`,
    ``,
    table(['shape', 'events', 'server commands / job', 'PUBLISH / job', 'server CPU µs / job'], rows),
  ].join('\n');
  publish('events-cost.md', md);
}

await main();
