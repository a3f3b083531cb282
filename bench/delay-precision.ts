/**
 * How close to its due time a delayed job starts on an idle worker, Echo against BullMQ 6.7.0
 * (rounds interleaved), and what an idle Echo worker costs the server. Each sample enqueues one job with a delay (spread over `--delay-ms` .. twice that, so
 * due times do not line up with any tick), waits for its handler to start and records how late it
 * started against the due time (the midpoint of the enqueue call plus the delay). The idle row
 * counts server commands per second over a quiet window with one job scheduled far ahead, against
 * the same window with an empty schedule: the due clock must add nothing while idle.
 *
 *   pnpm bench:delays                 # 200 samples, 3 rounds
 *   pnpm bench:delays --quick         # a smoke run
 */
import { Queue, Worker } from '@echo/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import type { Redis } from 'ioredis';
import { boolOption, intOption } from './lib/options.js';
import { percentile } from './lib/phase.js';
import { progress, publish, table } from './lib/report.js';
import { fmtSpread, spread } from './lib/stats.js';

const QUICK = process.argv.includes('--quick') || boolOption('quick', false);
const SAMPLES = intOption('samples', QUICK ? 20 : 200);
const ROUNDS = intOption('rounds', QUICK ? 1 : 3);
const DELAY_MS = intOption('delay-ms', 50);
const IDLE_MS = intOption('idle-ms', QUICK ? 1_000 : 5_000);

async function commandCalls(admin: Redis): Promise<number> {
  const text = (await admin.call('INFO', 'commandstats')) as string;
  let total = 0;
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

/** Lateness in ms of `SAMPLES` delayed jobs, one at a time, on an idle worker with default options. */
async function lateness(url: string, round: number): Promise<number[]> {
  const queue = await Queue.open<number>(`delays-${round}`, { connect: url });
  const waiters = new Map<number, (at: number) => void>();
  const worker = await Worker.start(queue, (job) => waiters.get(job.payload)?.(performance.now()));
  const out: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const delay = DELAY_MS + Math.floor(Math.random() * DELAY_MS);
    const started = new Promise<number>((resolve) => waiters.set(i, resolve));
    const sent = performance.now();
    await queue.enqueue(i, { delayMs: delay });
    const due = (sent + performance.now()) / 2 + delay;
    out.push((await started) - due);
  }
  await worker.close();
  await queue.close();
  return out;
}

/** The same samples through BullMQ: one idle worker (concurrency 1), `delay` per job. */
async function bullLateness(server: RedisServer, round: number): Promise<number[]> {
  const connection = { host: server.host, port: server.port, maxRetriesPerRequest: null };
  const name = `bull-delays-${round}`;
  const queue = new BullQueue<{ i: number }>(name, { connection });
  const waiters = new Map<number, (at: number) => void>();
  const worker = new BullWorker<{ i: number }>(name, (job) => {
    waiters.get(job.data.i)?.(performance.now());
    return Promise.resolve();
  }, { connection, concurrency: 1, removeOnComplete: { count: 0 } });
  await worker.waitUntilReady();
  const out: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const delay = DELAY_MS + Math.floor(Math.random() * DELAY_MS);
    const started = new Promise<number>((resolve) => waiters.set(i, resolve));
    const sent = performance.now();
    await queue.add('d', { i }, { delay, removeOnComplete: true });
    const due = (sent + performance.now()) / 2 + delay;
    out.push((await started) - due);
  }
  await worker.close();
  await queue.close();
  return out;
}

/** Server commands per second while a worker idles, with or without a job scheduled far ahead. */
async function idleLoad(url: string, admin: Redis, scheduled: boolean): Promise<number> {
  const queue = await Queue.open<number>(`idle-${String(scheduled)}`, { connect: url });
  if (scheduled) await queue.enqueue(0, { delayMs: 3_600_000 });
  const worker = await Worker.start(queue, () => undefined);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = await commandCalls(admin);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const after = await commandCalls(admin);
  await worker.close();
  await queue.close();
  return ((after - before) / IDLE_MS) * 1000;
}

async function main(): Promise<void> {
  const server = await startRedis();
  const admin = server.client();
  try {
    const figures = { echo: { p50: [] as number[], p99: [] as number[], max: [] as number[] }, bull: { p50: [] as number[], p99: [] as number[], max: [] as number[] } };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['bull', 'echo'] as const) : (['echo', 'bull'] as const);
      for (const side of order) {
        const late = side === 'echo' ? await lateness(server.url, round) : await bullLateness(server, round);
        const f = figures[side];
        f.p50.push(percentile(late, 50));
        f.p99.push(percentile(late, 99));
        f.max.push(percentile(late, 100));
        progress(`round ${round + 1}/${ROUNDS} ${side}: p50 ${percentile(late, 50).toFixed(1)} ms, p99 ${percentile(late, 99).toFixed(1)} ms`);
      }
    }
    const idleEmpty = await idleLoad(server.url, admin, false);
    const idleScheduled = await idleLoad(server.url, admin, true);
    const ms = (v: number): string => `${v.toFixed(1)} ms`;
    const report = [
      '# Delay precision: scheduled job start against its due time',
      '',
      `One idle worker per side (Echo with default options, BullMQ at concurrency 1), ${SAMPLES} jobs one at a time with delays of ${DELAY_MS}-${2 * DELAY_MS} ms, ${ROUNDS} round(s); median (min-max) over rounds. Target: p99 <= 20 ms.`,
      '',
      table(['measure', 'Echo', 'BullMQ'], [
        ['start after due, p50', fmtSpread(spread(figures.echo.p50), ms), fmtSpread(spread(figures.bull.p50), ms)],
        ['start after due, p99', fmtSpread(spread(figures.echo.p99), ms), fmtSpread(spread(figures.bull.p99), ms)],
        ['start after due, max', fmtSpread(spread(figures.echo.max), ms), fmtSpread(spread(figures.bull.max), ms)],
        ['idle worker, empty schedule: server commands/s', idleEmpty.toFixed(2), '-'],
        ['idle worker, one job scheduled an hour ahead: server commands/s', idleScheduled.toFixed(2), '-'],
      ]),
    ].join('\n');
    publish('delay-precision.md', report);
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

await main();
