import type { Admin, QueueRates, QueueSummary } from '@echo/dashboard';
import type { WorkerInfo } from '@echo/queue';
import { requireQueue, type CommandContext } from '../context.js';
import { fields, json, table, when } from '../format.js';

function summaryRow(q: QueueSummary): (string | number)[] {
  const c = q.counts;
  return [q.name, q.paused ? 'paused' : 'running', c.pending, c.lanes, c.scheduled, c.active, c.dead, c.awaitingChildren, c.completed, c.failed];
}

/** LANES: jobs pending in lanes, which only a lane worker (`source: 'lanes'`) serves. */
const SUMMARY_HEADERS = ['QUEUE', 'STATE', 'PENDING', 'LANES', 'SCHEDULED', 'ACTIVE', 'DEAD', 'AWAITING', 'COMPLETED', 'FAILED'];

/** `emq queues`: every queue on the server with its counts. */
export async function queuesCommand(ctx: CommandContext): Promise<void> {
  const summaries = await (await ctx.admin()).summaries();
  if (ctx.json) ctx.io.out(json({ queues: summaries }));
  else if (summaries.length === 0) ctx.io.out('no queues on this server\n');
  else ctx.io.out(table(SUMMARY_HEADERS, summaries.map(summaryRow)));
}

/** What `emq stats` prints as JSON. */
interface Stats extends QueueSummary {
  readonly rates: Omit<QueueRates, 'name'>;
  /** Worker connections on the server, every queue together; `null` without `CLIENT LIST`. */
  readonly serverWorkers: number | null;
  /** The queue's live workers, from its registry. */
  readonly workers: readonly WorkerInfo[];
}

async function stats(admin: Admin, name: string, windowMs: number, signal: AbortSignal): Promise<Stats> {
  // Ctrl-C ends the rate window at once: a long --interval must not hold the process.
  const [summary, rates, connected, workers] = await Promise.all([admin.summary(name), admin.rates(name, windowMs, { signal }), admin.workers(), admin.queueWorkers(name)]);
  const { name: _name, ...rest } = rates;
  return { ...summary, rates: rest, serverWorkers: connected ?? null, workers };
}

/** One registry entry as a line: who, where, how busy, and when it last beat. */
function workerLine(w: WorkerInfo): string {
  return `${w.name} (${w.kind}, ${w.host} pid ${String(w.pid)}) ${String(w.active)}/${String(w.concurrency)} held, last beat ${when(w.lastBeatAt) ?? '-'} UTC`;
}

function statsText(s: Stats): string {
  const c = s.counts;
  return fields([
    ['queue', s.name],
    ['state', s.paused ? 'paused' : 'running'],
    ['concurrency', s.concurrency === 0 ? 'unlimited' : s.concurrency],
    ['pending', c.pending],
    ['in lanes', `${String(c.lanes)}${c.lanes > 0 ? " (served only by a lane worker: source 'lanes')" : ''}`],
    ['scheduled', c.scheduled],
    ['active', c.active],
    ['dead', c.dead],
    ['awaiting children', c.awaitingChildren],
    ['completed', c.completed],
    ['failed', c.failed],
    ['completed/s', `${s.rates.completedPerSec} (over ${s.rates.windowMs} ms)`],
    ['failed/s', `${s.rates.failedPerSec} (over ${s.rates.windowMs} ms)`],
    ['workers', s.serverWorkers === null ? 'unknown (CLIENT LIST refused)' : `${s.serverWorkers} connected to the server (all queues)`],
    ['live workers', s.workers.length],
    ...s.workers.map((w): [string, string] => ['  worker', workerLine(w)]),
  ]);
}

/**
 * `emq stats <queue>`: counts, pause state, rates and workers. Rates are the change of the
 * monotonic completed/failed counters over `--interval` ms.
 */
export async function statsCommand(ctx: CommandContext, name: string, intervalMs: number): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const s = await stats(admin, name, intervalMs, ctx.io.signal);
  ctx.io.out(ctx.json ? json(s) : statsText(s));
}

/**
 * `emq watch <queue>`: `stats` redrawn every `--interval` ms until Ctrl-C (or `--count` frames).
 * On a terminal each frame replaces the last; otherwise frames are appended, one JSON line each
 * under `--json`.
 */
export async function watchCommand(ctx: CommandContext, name: string, intervalMs: number, count: number | undefined): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const { io } = ctx;
  const stopped = (): boolean => io.signal.aborted;
  for (let frame = 1; !stopped(); frame++) {
    // The rate window is the refresh interval itself, so each frame costs one wait.
    const s = await stats(admin, name, intervalMs, io.signal);
    if (stopped()) break;
    if (ctx.json) io.out(JSON.stringify({ at: Date.now(), ...s }) + '\n');
    else if (io.isTty) io.out(`\x1b[H\x1b[2J${statsText(s)}\n(every ${intervalMs} ms; Ctrl-C to stop)\n`);
    else io.out(`${new Date().toISOString()}\n${statsText(s)}\n`);
    if (count !== undefined && frame >= count) break;
  }
}
