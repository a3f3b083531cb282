/**
 * The price of the telemetry hooks. Two measures:
 *
 * 1. The emit path alone: the one-line emit a worker runs per completed job (`hasSubscribers`
 *    check, then a payload and a publish when someone listens), with no listener and with one,
 *    in ns per emit. Deterministic enough to read on a shared machine.
 * 2. The one-by-one bench (Worker, concurrency 50, no-op handler) with no listener and with a
 *    listener on every `emq.job.*` hook, interleaved per round; the ratio is taken within each round.
 *    Timing on a shared 2-core machine is noise: the lead reruns it on a quiet one.
 *
 *   pnpm --filter @echo/bench bench:telemetry             # 20,000 jobs, 5 rounds
 *   pnpm --filter @echo/bench bench:telemetry --quick     # a smoke run
 */
import { TELEMETRY_HOOK_NAMES, hooks, onHook, type JobCompleteEvent } from '@echo/protocol/extend';
import { Queue, Worker } from '@echo/queue';
import { startRedis } from '@echo/testkit';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmtRatio, fmtSpread, pairedRatios, spread, waitUntil } from './lib/stats.js';

const QUICK = process.argv.includes('--quick') || boolOption('quick', false);
const JOBS = intOption('jobs', QUICK ? 2_000 : 20_000);
const ROUNDS = intOption('rounds', QUICK ? 1 : 5);
const EMITS = intOption('emits', QUICK ? 1_000_000 : 10_000_000);

/** ns per emit of the worker's completion hook, as the worker writes it. */
function emitCost(listening: boolean): number {
  let sink = 0;
  const off = listening ? onHook('emq.job.complete', (e) => void (sink += e.attempt)) : undefined;
  const complete = hooks.job.complete;
  const job = { id: 'JOB0000000000001', attempts: 1, group: undefined };
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < EMITS; i++) {
    if (complete.hasSubscribers) complete.publish({ queue: 'bench', jobId: job.id, attempt: job.attempts, group: job.group, durationMs: i } satisfies JobCompleteEvent);
  }
  const ns = Number(process.hrtime.bigint() - t0) / EMITS;
  off?.();
  if (listening && sink !== EMITS) throw new Error(`the listener heard ${sink} of ${EMITS}`);
  return ns;
}

async function oneByOne(url: string, listening: boolean, round: number): Promise<number> {
  let heard = 0;
  const offs = listening ? TELEMETRY_HOOK_NAMES.filter((n) => n.startsWith('emq.job.')).map((n) => onHook(n, () => {
    heard++;
  })) : [];
  const queue = await Queue.open<number>(`tel-${listening ? 'on' : 'off'}-${round}`, { connect: url });
  try {
    for (let at = 0; at < JOBS; at += 1_000) await queue.enqueueMany(Array.from({ length: Math.min(1_000, JOBS - at) }, (_, i) => ({ payload: at + i })));
    let done = 0;
    const t0 = performance.now();
    const worker = await Worker.start(queue, () => {
      done++;
    }, { concurrency: 50 });
    await waitUntil(() => done >= JOBS && worker.stats().completed >= JOBS, 120_000, 'the queue to drain');
    const perSecond = JOBS / ((performance.now() - t0) / 1000);
    await worker.close();
    if (listening && heard < JOBS) throw new Error(`hooks heard ${heard} events for ${JOBS} jobs`);
    return perSecond;
  } finally {
    for (const off of offs) off();
    await queue.close();
  }
}

const server = await startRedis();
try {
  const off: number[] = [];
  const on: number[] = [];
  const emitOff: number[] = [];
  const emitOn: number[] = [];
  // Warm both paths so the first measured round is not the JIT's.
  emitCost(false);
  emitCost(true);
  for (let round = 0; round < ROUNDS; round++) {
    progress(`round ${round + 1}/${ROUNDS}`);
    emitOff.push(emitCost(false));
    emitOn.push(emitCost(true));
    // Alternate which side goes first, so a warm-up or drift does not always favour one side.
    if (round % 2 === 0) {
      off.push(await oneByOne(server.url, false, round));
      on.push(await oneByOne(server.url, true, round));
    } else {
      on.push(await oneByOne(server.url, true, round));
      off.push(await oneByOne(server.url, false, round));
    }
  }
  const markdown = [
    `# Telemetry hooks: cost (${JOBS} jobs, ${ROUNDS} rounds, ${EMITS} emits; Node ${process.version})`,
    '',
    table(
      ['measure', 'no listener', 'listeners on', 'on/off'],
      [
        ['emit path, ns per completed-job emit', fmtSpread(spread(emitOff)), fmtSpread(spread(emitOn)), fmtSpread(spread(pairedRatios(emitOn, emitOff)), fmtRatio)],
        ['one by one, Worker c50, jobs/s', fmtSpread(spread(off)), fmtSpread(spread(on)), fmtSpread(spread(pairedRatios(on, off)), fmtRatio)],
      ],
    ),
    '',
    `Timing on a shared machine is noise (swings up to 1.7x between runs); read the ratio within rounds. The hooks send no server command: the wire is the same either way.`,
  ].join('\n');
  publish('telemetry.md', markdown);
} finally {
  await server.stop();
}
