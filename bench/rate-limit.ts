/**
 * How exactly a rate limit holds when several processes share it: 4 workers in 2 child processes
 * (2 each, concurrency 8) drain a deep queue under a limit of `--max` jobs per `--duration-ms`;
 * after `--seconds` the queue is paused (every claim stops on the server at once) and the jobs that
 * ran are counted. Target (issue 11): 100/s for 10 s runs 1,000 ± 2%. Two rows: the queue's own
 * limit (`setRateLimit`, flat claims) and one lane's limit (`laneRateLimit`, lane claims).
 *
 *   pnpm bench:rate-limit                       # both rows, 3 rounds each
 *   pnpm bench:rate-limit --rounds 1 --seconds 5
 *   pnpm bench:rate-limit --block-ms 50         # idle workers look again every 50 ms
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mintId } from '@echo/protocol/extend';
import { Queue } from '@echo/queue';
import { startRedis } from '@echo/testkit';
import { intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmtSpread, spread } from './lib/stats.js';

const MAX = intOption('max', 100);
const DURATION_MS = intOption('duration-ms', 1000);
const SECONDS = intOption('seconds', 10);
const ROUNDS = intOption('rounds', 3);
/** The workers' `blockMs`: how often an idle worker looks again without a wake token (default: the worker's own). */
const BLOCK_MS = intOption('block-ms', 1000, 10);
const PROCESSES = 2;
const WORKERS_PER_PROCESS = 2;
const CHILD = fileURLToPath(new URL('./lib/rate-child.ts', import.meta.url));

type Mode = 'queue' | 'lane';

function once<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string } & T): void => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`worker process exited with ${String(code)} before ${type}`)));
  });
}

/** One measured run: answers the jobs completed within the window. */
async function run(url: string, mode: Mode, round: number): Promise<number> {
  const name = `rate-${mode}-${round}`;
  const queue = await Queue.open<number>(name, { connect: url });
  const lane = mintId('TEN');
  if (mode === 'queue') await queue.setRateLimit({ max: MAX, durationMs: DURATION_MS });
  else await queue.laneRateLimit(lane, { max: MAX, durationMs: DURATION_MS });
  const children = Array.from({ length: PROCESSES }, () =>
    fork(CHILD, [url, name, mode === 'lane' ? 'lanes' : 'flat', String(WORKERS_PER_PROCESS), String(BLOCK_MS)], { execArgv: process.execArgv, stdio: 'inherit' }),
  );
  await Promise.all(children.map((c) => once(c, 'ready')));
  // Enough work that the limit, never the backlog, bounds the run.
  const jobs = Math.ceil(((MAX * SECONDS * 1000) / DURATION_MS) * 1.5);
  const started = performance.now();
  if (mode === 'queue') await queue.enqueueMany(Array.from({ length: jobs }, (_, n) => ({ payload: n })));
  else for (let i = 0; i < jobs; i += 500) await Promise.all(Array.from({ length: Math.min(500, jobs - i) }, (_, n) => queue.enqueueInLane(lane, i + n)));
  const enqueueMs = performance.now() - started;
  const left = SECONDS * 1000 - enqueueMs;
  await new Promise((resolve) => setTimeout(resolve, Math.max(left, 0)));
  await queue.pause();
  const ran = await Promise.all(
    children.map(async (c) => {
      const done = once<{ ran: number }>(c, 'done');
      c.send({ type: 'stop' });
      return (await done).ran;
    }),
  );
  const completed = (await queue.counts('completed')).completed;
  progress(`${mode} round ${round + 1}: ${completed} completed (${ran.join(' + ')} by process), enqueue took ${enqueueMs.toFixed(0)} ms`);
  await queue.obliterate({ force: true });
  await queue.close();
  return completed;
}

async function main(): Promise<void> {
  const server = await startRedis();
  try {
    const target = (MAX * SECONDS * 1000) / DURATION_MS;
    const rows: string[][] = [];
    for (const mode of ['queue', 'lane'] as const) {
      const counts: number[] = [];
      for (let round = 0; round < ROUNDS; round++) counts.push(await run(server.url, mode, round));
      const worst = Math.max(...counts.map((c) => Math.abs(c - target) / target));
      rows.push([
        mode === 'queue' ? 'queue limit (`setRateLimit`), flat claims' : 'lane limit (`laneRateLimit`), lane claims',
        fmtSpread(spread(counts), (v) => v.toFixed(0)),
        `${(worst * 100).toFixed(1)}%`,
        worst <= 0.02 ? 'met' : 'not met',
      ]);
    }
    const report = [
      '# Rate limits shared across processes',
      '',
      `${PROCESSES} processes x ${WORKERS_PER_PROCESS} workers (concurrency 8, blockMs ${BLOCK_MS}), limit ${MAX} per ${DURATION_MS} ms, jobs run in ${SECONDS} s (then the queue is paused); median (min-max) over ${ROUNDS} rounds. Target: ${target} ± 2%.`,
      '',
      table(['limit', `jobs in ${SECONDS} s`, 'worst deviation', '± 2%'], rows),
    ].join('\n');
    publish('rate-limit.md', report);
  } finally {
    await server.stop();
  }
}

await main();
