/**
 * The price of trace context in the job row, in Node CPU per job (user + system, `process.cpuUsage`),
 * for three set-ups measured in turn within each round:
 *
 * - `off`: nobody instruments. The row carries no trace field; each admission and handler run reads
 *   `hasSubscribers` once.
 * - `channels`: bare listeners on both tracing channels; the enqueue one writes a fixed
 *   `traceparent` (the hook mechanism and the two row fields, without a tracing library).
 * - `otel`: `instrumentEcho` with a `BasicTracerProvider` whose processor drops ended spans, and the
 *   `AsyncLocalStorageContextManager` (producer span, row fields, consumer span current in the handler).
 *
 * Each set-up admits JOBS jobs with `enqueue` (one by one, 50 in flight: the trace fields ride single
 * admissions) and drains them with a Worker (concurrency 50, no-op handler). Server commands per job
 * are the same in every set-up (the fields ride the existing calls). CPU figures on a shared machine
 * still move with load; read them as a ratio within the round and rerun on a quiet machine.
 *
 *   pnpm --filter @echo/bench bench:trace             # 10,000 jobs, 5 rounds
 *   pnpm --filter @echo/bench bench:trace --quick     # a smoke run
 */
import { traces } from '@echo/protocol/extend';
import { Queue, Worker } from '@echo/queue';
import { startRedis } from '@echo/testkit';
import { clientCpuUs } from './lib/admin.js';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { closeTracing, instrument, SETUPS, type Setup, type TraceChannels } from './lib/trace-setups.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread, waitUntil } from './lib/stats.js';

const QUICK = process.argv.includes('--quick') || boolOption('quick', false);
const JOBS = intOption('jobs', QUICK ? 2_000 : 10_000);
const ROUNDS = intOption('rounds', QUICK ? 1 : 5);
const IN_FLIGHT = 50;

const CHANNELS: TraceChannels = { produce: traces.enqueue.start.name, process: traces.process.start.name };

interface Round {
  /** Node CPU µs per admission. */
  readonly enqueueUs: number;
  /** Node CPU µs per processed job (claim, handler, settle). */
  readonly processUs: number;
}

async function measure(url: string, setup: Setup, round: number): Promise<Round> {
  const stop = instrument(setup, CHANNELS);
  const queue = await Queue.open<number>(`trace-${setup}-${String(round)}`, { connect: url });
  try {
    let next = 0;
    const cpu0 = clientCpuUs();
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < JOBS) await queue.enqueue(next++);
    }));
    const cpu1 = clientCpuUs();
    let done = 0;
    const worker = await Worker.start(queue, () => {
      done++;
    }, { concurrency: IN_FLIGHT });
    await waitUntil(() => done >= JOBS && worker.stats().completed >= JOBS, 120_000, 'the queue to drain');
    const cpu2 = clientCpuUs();
    await worker.close();
    return { enqueueUs: (cpu1 - cpu0) / JOBS, processUs: (cpu2 - cpu1) / JOBS };
  } finally {
    stop();
    await queue.close();
  }
}

const server = await startRedis();
try {
  const results = new Map<Setup, Round[]>(SETUPS.map((s) => [s, []]));
  await measure(server.url, 'otel', -1);
  await measure(server.url, 'off', -1);
  for (let round = 0; round < ROUNDS; round++) {
    progress(`round ${String(round + 1)}/${String(ROUNDS)}`);
    // Rotate the order so a warm-up or drift does not always favour one set-up.
    const order = SETUPS.map((_, i) => SETUPS[(i + round) % SETUPS.length] as Setup);
    for (const setup of order) results.get(setup)?.push(await measure(server.url, setup, round));
  }
  const off = results.get('off') ?? [];
  const row = (setup: Setup, pick: (r: Round) => number): string[] => {
    const mine = (results.get(setup) ?? []).map(pick);
    return [fmtSpread(spread(mine), fmt), fmtSpread(spread(pairedRatios(mine, off.map(pick))), fmtRatio)];
  };
  const markdown = [
    `# Trace context in the job row: Node CPU per job (${String(JOBS)} jobs, ${String(ROUNDS)} rounds; Node ${process.version})`,
    '',
    table(
      ['set-up', 'enqueue µs CPU/job', 'vs off', 'Worker µs CPU/job', 'vs off'],
      SETUPS.map((s) => [s, ...row(s, (r) => r.enqueueUs), ...row(s, (r) => r.processUs)]),
    ),
    '',
    'median (min–max) over rounds; ratios are paired within a round. Same server commands per job in every set-up.',
  ].join('\n');
  publish('trace-context.md', markdown);
} finally {
  await closeTracing();
  await server.stop();
}
