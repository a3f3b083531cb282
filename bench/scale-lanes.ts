/**
 * Scale curve: lanes. The same backlog spread over 10 lanes and over 10,000, drained by one Worker
 * (`source: 'lanes'`, concurrency 50): jobs/s, claim cost per job (Node and Redis CPU, server
 * commands), Redis CPU per admission, and fairness (Jain's index of the jobs served per lane over the first half of the
 * drain: 1.00 = every lane served equally).
 *
 *   pnpm bench:scale-lanes                       # 20,000 jobs, lanes 10 / 1,000 / 10,000, 3 rounds
 *   pnpm bench:scale-lanes --jobs 5000 --rounds 1
 */
import { Redis } from 'ioredis';
import { Queue, Worker } from '@echo/queue';
import { startRedis } from '@echo/testkit';
import { metered } from './lib/cpu-meter.js';
import { intOption } from './lib/options.js';
import { runCurve } from './lib/scale.js';
import { waitUntil } from './lib/stats.js';

const JOBS = intOption('jobs', 20_000);
const ROUNDS = intOption('rounds', 3);
const CONCURRENCY = intOption('concurrency', 50);
const LANES = [10, 1_000, 10_000];
const INFLIGHT = 200;

const server = await startRedis();
const side = new Redis(server.url);

/** Jain's fairness index of the counts: (Σx)² / (n·Σx²); 1 when every lane got the same. */
function jain(counts: readonly number[]): number {
  let sum = 0;
  let squares = 0;
  for (const c of counts) {
    sum += c;
    squares += c * c;
  }
  return squares === 0 ? Number.NaN : (sum * sum) / (counts.length * squares);
}

async function measure(lanes: number, round: number): Promise<Record<string, number>> {
  await side.call('FLUSHALL', 'SYNC');
  const queue = await Queue.open<{ lane: number }>(`lanes-${round}-${lanes}`, { connect: server.url });
  try {
    // Round-robin admission: lane i gets jobs i, i + lanes, …, so every lane holds JOBS / lanes.
    // Each admission after the first lap lands in a lane already in the ring, the first lap in one
    // that is not: both re-ring answers are on this path.
    const admission = await metered(side, async () => {
      for (let next = 0; next < JOBS; ) {
        const wave: Promise<unknown>[] = [];
        for (; next < JOBS && wave.length < INFLIGHT; next++) wave.push(queue.enqueueInLane(`tenant-${next % lanes}`, { lane: next % lanes }));
        await Promise.all(wave);
      }
      return JOBS;
    });
    // Only lanes that hold jobs can be served (fewer jobs than lanes leaves some empty).
    const served = new Array<number>(Math.min(lanes, JOBS)).fill(0);
    let handled = 0;
    let worker: Worker<{ lane: number }> | undefined;
    const cost = await metered(side, async () => {
      worker = await Worker.start(
        queue,
        (job) => {
          // Fairness over the first half: later the lanes that are left are what is served.
          if (handled++ < JOBS / 2) served[job.payload.lane] = (served[job.payload.lane] ?? 0) + 1;
        },
        { source: 'lanes', concurrency: CONCURRENCY },
      );
      const w = worker;
      await waitUntil(() => w.stats().completed >= JOBS, 300_000, `${JOBS} lane jobs`);
      return JOBS;
    });
    await worker?.close();
    return {
      'jobs/s': cost.opsPerSec,
      'Node µs/job': cost.nodeUs,
      'Redis µs/job': cost.redisUs,
      'commands/job': cost.commands,
      'fairness (Jain)': jain(served),
      'Redis µs/admission': admission.redisUs,
    };
  } finally {
    await queue.close();
  }
}

try {
  await runCurve({
    title: 'Scale curve: lanes (10 vs 10,000)',
    file: 'scale-lanes.md',
    dimension: 'lanes',
    sizes: LANES,
    rounds: ROUNDS,
    figures: [
      { name: 'jobs/s', higherIsBetter: true },
      { name: 'Node µs/job', higherIsBetter: false },
      { name: 'Redis µs/job', higherIsBetter: false },
      { name: 'commands/job', higherIsBetter: false },
      { name: 'fairness (Jain)', higherIsBetter: true },
      { name: 'Redis µs/admission', higherIsBetter: false },
    ],
    headline: 'Redis µs/job',
    method: [
      `${JOBS.toLocaleString('en-US')} jobs admitted round-robin over the lanes (enqueueInLane, ${INFLIGHT} in flight; its Redis CPU per admission is the last figure), then one Worker { source: 'lanes', concurrency: ${CONCURRENCY} } drains them; timed from Worker.start to the last completion`,
      'claim cost: Node CPU (process.cpuUsage), Redis CPU (INFO cpu) and server commands (INFO commandstats, script-internal calls included) per job over the drain',
      "fairness: Jain's index of the jobs each lane that held jobs had served when half the backlog was done (1.00 = every lane equally; needs jobs >= 2 x lanes to be reachable)",
    ],
    measure,
  });
} finally {
  side.disconnect();
  await server.stop();
}
