/**
 * Echo's queue against BullMQ on one redis-server: bulk enqueue, processing one by one (concurrency
 * 50), Echo's batch mode, pickup latency at concurrency 1 (an idle worker, and jobs sent at a steady
 * 500/s), a 4 KB payload, memory per pending job (also at a million waiting jobs) and server-side
 * commands and CPU per job. Rounds are interleaved (BullMQ, Echo, BullMQ, Echo, ...) and every ratio
 * is taken within a round, so the machine's drift between rounds mostly cancels. Then, in their own
 * processes, the bus against raw ioredis (`bus-vs-raw.ts`) and kept results against keeping none
 * (`settings-cost.ts --modes=retention`), so this one command prints every row of issue 40.
 * See README.md.
 *
 *   pnpm bench                      # 20,000 jobs, 5 rounds, plus the 1,000,000-job fill, then the companions
 *   pnpm bench --quick              # a quick correctness run (about a minute with the companions)
 *   pnpm bench --companions false   # the queue rows only
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Admin, machineHeader } from './lib/admin.js';
import { BullSide } from './lib/bull-side.js';
import { EchoSide, type EchoProcessing } from './lib/echo-side.js';
import { boolOption, intOption } from './lib/options.js';
import { boundLine, goalLine, type Sides } from './lib/goals.js';
import { clientUs, percentile, perJob, perSecond, serverUs, tripsPerJob, type BenchConfig, type Fill, type Memory, type Phase } from './lib/phase.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread } from './lib/stats.js';
import { acquireTarget } from './lib/target.js';

const QUICK = boolOption('quick', false);
const JOBS = intOption('jobs', QUICK ? 2_000 : 20_000);
const ROUNDS = intOption('rounds', QUICK ? 1 : 5);
const WARMUP = intOption('warmup', 1, 0);
const WARMUP_JOBS = intOption('warmup-jobs', Math.min(JOBS, QUICK ? 500 : 2_000));
const PAD = intOption('pad', 64, 0);
/** Jobs of the 4 KB-payload row, each round. */
const JOBS_4K = intOption('jobs-4k', Math.min(JOBS, QUICK ? 500 : 5_000), 0);
const PAD_4K = 4096;
/** Jobs enqueued one at a time into an idle worker at concurrency 1, each round. */
const LATENCY_JOBS = intOption('latency-jobs', QUICK ? 30 : 200, 0);
/** Jobs of the paced pickup row (sent at PACED_RATE per second, not waiting for each); 0 skips it. */
const PACED_JOBS = intOption('paced-jobs', QUICK ? 100 : 1_000, 0);
const PACED_RATE = intOption('paced-rate', 500);
/** Issue 40's pickup goals: an idle worker's p50, and p99 under a steady PACED_RATE. */
const PICKUP_IDLE_P50_MS = 0.5;
const PICKUP_PACED_P99_MS = 2;
/** After the queue's report, the bus (vs raw ioredis) and kept-results benches run too, so one command prints every row; `--companions false` skips them. */
const COMPANIONS = boolOption('companions', true);
/** Jobs of the scale row (enqueue rate and memory with this many waiting), once after the rounds; 0 skips it. */
const BIG = intOption('big', QUICK ? 0 : 1_000_000, 0);

const CFG: BenchConfig = {
  queue: 'bench',
  concurrency: intOption('concurrency', 50),
  batch: intOption('batch', 50),
  /** Batches the Echo BatchWorker keeps in flight (its `concurrency`); 2 is its default. */
  batchInflight: intOption('batch-inflight', 2),
  chunk: intOption('chunk', 1_000),
  sample: intOption('sample', 200),
  timeoutMs: intOption('timeout-s', 300) * 1000,
  leaseMs: 30_000,
  bullRemoveOnComplete: boolOption('bull-remove-on-complete', true),
};

/** What one system did in one round. */
interface Round extends Fill {
  readonly process: Phase;
  /** The 4 KB-payload fill and drain. */
  readonly big4k?: Fill & { readonly process: Phase };
  /** Enqueue → handler start at concurrency 1, ms. */
  readonly latency: readonly number[];
  /** Enqueue → handler start at PACED_RATE jobs/s, concurrency 1, ms. */
  readonly paced: readonly number[];
  /** Echo only. */
  readonly echo?: EchoProcessing;
}

/** One table row: both systems' spreads and the paired ratio. */
function row(label: string, bull: readonly number[], echo: readonly number[]): string[] {
  return [label, fmtSpread(spread(bull)), fmtSpread(spread(echo)), fmtSpread(spread(pairedRatios(echo, bull)), fmtRatio)];
}

/** `evalsha 1.00, hset 1.00, ...`: calls per job by command, most first. */
function breakdown(p: Phase): string {
  return [...p.commands.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, calls]) => `${name} ${(calls / p.jobs).toFixed(2)}`)
    .join(', ');
}

function structureLines(m: Memory, jobs: number): string {
  const parts = m.structure.map(([key, bytes]) => `\`${key}\` ${fmt(bytes)} B (${fmt(bytes / jobs)} B/job)`);
  return `job key mean ${fmt(m.jobKeyMean)} B; other keys: ${parts.length === 0 ? 'none' : parts.join(', ')}`;
}

const SIDES: Sides = { echo: 'Echo', peer: 'BullMQ', unit: 'job' };

/** Issue 25's memory goal: Echo/BullMQ `MEMORY USAGE` per pending job held at or under this, within the wire. */
const MEMORY_AT_MOST = 0.81;

/** An absolute latency goal (ms, at most), with BullMQ's figure on the same host as its measured context. */
function pickupGoal(label: string, atMost: number, bull: readonly number[], echo: readonly number[]): string {
  const e = spread(echo).median;
  const b = spread(bull).median;
  return boundLine({
    label,
    value: e,
    atMost,
    format: (ms) => `${fmt(ms)} ms`,
    measured: [
      `Measured (medians of the rounds): Echo ${fmt(e)} ms, BullMQ ${fmt(b)} ms on the same server in the same run (Echo/BullMQ ${fmtRatio(spread(pairedRatios(echo, bull)).median)}).`,
      'An idle Echo worker claims in the wake itself (its claim rides right behind the blocking wake read), so a pickup is the enqueue reply, the wake and the handler call in this one process.',
    ],
    move: `${fmt(e - atMost)} ms less per pickup; BullMQ's own pickup on this host (${fmt(b)} ms) says how much of it is the host's loopback and event-loop turns rather than either queue`,
  });
}

/**
 * The memory goal's line. The reason, when it is missed, is each side's bytes per job split into
 * its job key and its queue's other keys (last round), and how many bytes per job Echo must shed.
 */
function memoryGoal(bull: readonly Round[], echo: readonly Round[]): string {
  const bytes = (rounds: readonly Round[]): number => spread(rounds.map((r) => r.memory.keysPerJob)).median;
  const lastBull = bull[bull.length - 1];
  const lastEcho = echo[echo.length - 1];
  const ratio = spread(pairedRatios(echo.map((r) => r.memory.keysPerJob), bull.map((r) => r.memory.keysPerJob))).median;
  const allowed = bytes(bull) * MEMORY_AT_MOST;
  const over = bytes(echo) - allowed;
  const parts = (r: Round | undefined): string => (r === undefined ? 'n/a' : structureLines(r.memory, r.enqueue.jobs));
  const largest = lastEcho === undefined ? undefined : largestPart(lastEcho.memory, lastEcho.enqueue.jobs);
  return boundLine({
    label: 'memory per waiting job, MEMORY USAGE, Echo/BullMQ (hold within the wire)',
    value: ratio,
    atMost: MEMORY_AT_MOST,
    format: fmtRatio,
    measured: [
      `Measured per job (medians): ${fmt(bytes(echo))} B Echo vs ${fmt(bytes(bull))} B BullMQ.`,
      `Echo (last round): ${parts(lastEcho)}.`,
      `BullMQ (last round): ${parts(lastBull)}.`,
    ],
    move: `the goal allows Echo ${fmt(allowed)} B per job (BullMQ's ${fmt(bytes(bull))} B x ${MEMORY_AT_MOST}): ${fmt(over)} B per job less (${fmt((over / bytes(echo)) * 100)}%)${largest === undefined ? '' : `; Echo's largest part is ${largest}`}; within the wire means a smaller encoding of a part, not a field or structure the spec names dropped`,
  });
}

/** The biggest share of a pending job's bytes: the job key, or one of the queue's other keys per job. */
function largestPart(m: Memory, jobs: number): string {
  const shares: [string, number][] = [['the job key', m.jobKeyMean], ...m.structure.map(([key, bytes]): [string, number] => [`\`${key}\``, bytes / jobs])];
  shares.sort((a, b) => b[1] - a[1]);
  const [name, bytes] = shares[0] as [string, number];
  return `${name} at ${fmt(bytes)} B per job`;
}

/** The scale row: one fill of `BIG` jobs per system, against the same system's `JOBS` figures. */
interface Scale {
  readonly bull: Fill;
  readonly echo: Fill;
}

function render(header: readonly string[], bull: readonly Round[], echo: readonly Round[], scale: Scale | undefined): string {
  const b = (f: (r: Round) => number): number[] => bull.map(f);
  const e = (f: (r: Round) => number): number[] => echo.map(f);
  const need = <P>(p: P | undefined): P => {
    if (p === undefined) throw new Error('a round lacks a phase the report needs');
    return p;
  };
  const ep = (r: Round): EchoProcessing => need(r.echo);
  const k4 = (r: Round): Fill & { process: Phase } => need(r.big4k);
  const p50 = (r: Round): number => percentile(r.latency, 50);
  const p99 = (r: Round): number => percentile(r.latency, 99);
  const lastBull = bull[bull.length - 1] as Round;
  const lastEcho = echo[echo.length - 1] as Round;
  const rows = [
    row('enqueue, jobs/s (higher is better)', b((r) => perSecond(r.enqueue)), e((r) => perSecond(r.enqueue))),
    row(`process one by one, c${CFG.concurrency}, jobs/s (higher is better)`, b((r) => perSecond(r.process)), e((r) => perSecond(r.process))),
    row(`process batch: Echo BatchWorker(${CFG.batch}) vs BullMQ c${CFG.concurrency}, jobs/s (higher is better)`, b((r) => perSecond(r.process)), e((r) => perSecond(ep(r).batch))),
    row(`reference: Echo completeAndClaim(${CFG.batch}) loop vs BullMQ c${CFG.concurrency}, jobs/s (higher is better)`, b((r) => perSecond(r.process)), e((r) => perSecond(ep(r).batchLoop))),
  ];
  if (LATENCY_JOBS > 0) {
    rows.push(
      row('latency c1, enqueue → handler start, p50, ms (lower is better)', b(p50), e(p50)),
      row('latency c1, enqueue → handler start, p99, ms (lower is better)', b(p99), e(p99)),
    );
  }
  const paced50 = (r: Round): number => percentile(r.paced, 50);
  const paced99 = (r: Round): number => percentile(r.paced, 99);
  if (PACED_JOBS > 0) {
    rows.push(
      row(`pickup at ${fmt(PACED_RATE)} jobs/s, c1, enqueue → handler start, p50, ms (lower is better)`, b(paced50), e(paced50)),
      row(`pickup at ${fmt(PACED_RATE)} jobs/s, c1, enqueue → handler start, p99, ms (lower is better)`, b(paced99), e(paced99)),
    );
  }
  if (JOBS_4K > 0) {
    rows.push(
      row(`4 KB payload: enqueue, jobs/s (higher is better)`, b((r) => perSecond(k4(r).enqueue)), e((r) => perSecond(k4(r).enqueue))),
      row(`4 KB payload: process one by one, c${CFG.concurrency}, jobs/s (higher is better)`, b((r) => perSecond(k4(r).process)), e((r) => perSecond(k4(r).process))),
      row('4 KB payload: memory per pending job, MEMORY USAGE, bytes (lower is better)', b((r) => k4(r).memory.keysPerJob), e((r) => k4(r).memory.keysPerJob)),
    );
  }
  rows.push(
    row('memory per pending job, MEMORY USAGE, bytes (lower is better)', b((r) => r.memory.keysPerJob), e((r) => r.memory.keysPerJob)),
    row('memory per pending job, used_memory delta, bytes (lower is better)', b((r) => r.memory.infoPerJob), e((r) => r.memory.infoPerJob)),
    row('server commands per job, enqueue (lower is better)', b((r) => perJob(r.enqueue)), e((r) => perJob(r.enqueue))),
    row('server commands per job, process one by one (lower is better)', b((r) => perJob(r.process)), e((r) => perJob(r.process))),
    row(`server commands per job, BatchWorker vs BullMQ c${CFG.concurrency} (lower is better)`, b((r) => perJob(r.process)), e((r) => perJob(ep(r).batch))),
    row(`server commands per job, reference loop vs BullMQ c${CFG.concurrency} (lower is better)`, b((r) => perJob(r.process)), e((r) => perJob(ep(r).batchLoop))),
    row('redis-server CPU per job, enqueue, µs (lower is better)', b((r) => serverUs(r.enqueue)), e((r) => serverUs(r.enqueue))),
    row('redis-server CPU per job, process one by one, µs (lower is better)', b((r) => serverUs(r.process)), e((r) => serverUs(r.process))),
    row(`redis-server CPU per job, BatchWorker vs BullMQ c${CFG.concurrency}, µs (lower is better)`, b((r) => serverUs(r.process)), e((r) => serverUs(ep(r).batch))),
    row('client (Node) CPU per job, enqueue, µs (lower is better)', b((r) => clientUs(r.enqueue)), e((r) => clientUs(r.enqueue))),
    row('client (Node) CPU per job, process one by one, µs (lower is better)', b((r) => clientUs(r.process)), e((r) => clientUs(r.process))),
    row(`client (Node) CPU per job, BatchWorker vs BullMQ c${CFG.concurrency}, µs (lower is better)`, b((r) => clientUs(r.process)), e((r) => clientUs(ep(r).batch))),
    row('round trips per job (server socket reads), enqueue (lower is better)', b((r) => tripsPerJob(r.enqueue)), e((r) => tripsPerJob(r.enqueue))),
    row('round trips per job (server socket reads), process one by one (lower is better)', b((r) => tripsPerJob(r.process)), e((r) => tripsPerJob(r.process))),
    row(`round trips per job (server socket reads), BatchWorker vs BullMQ c${CFG.concurrency} (lower is better)`, b((r) => tripsPerJob(r.process)), e((r) => tripsPerJob(ep(r).batch))),
  );
  const goals = [
    goalLine({ label: 'bulk enqueue', sides: SIDES, atLeast: 4, peer: bull.map((r) => r.enqueue), echo: echo.map((r) => r.enqueue) }),
    goalLine({ label: `Worker one by one, c${CFG.concurrency}`, sides: SIDES, atLeast: 2.5, peer: bull.map((r) => r.process), echo: echo.map((r) => r.process) }),
    goalLine({ label: `BatchWorker(${CFG.batch}) vs BullMQ c${CFG.concurrency}`, sides: SIDES, atLeast: 3.5, peer: bull.map((r) => r.process), echo: echo.map((r) => ep(r).batch) }),
    memoryGoal(bull, echo),
    ...(LATENCY_JOBS > 0 ? [pickupGoal('pickup, idle worker, c1, p50 (issue 40)', PICKUP_IDLE_P50_MS, b(p50), e(p50))] : []),
    ...(PACED_JOBS > 0 ? [pickupGoal(`pickup at ${fmt(PACED_RATE)} jobs/s, c1, p99 (issue 40)`, PICKUP_PACED_P99_MS, b(paced99), e(paced99))] : []),
  ];
  const scaleLines = scale === undefined ? ['Scale row skipped (`--big 0`).'] : scaleTable(scale, bull, echo);
  return [
    '# Echo vs BullMQ',
    '',
    ...header,
    `- jobs per run: ${JOBS}; measured rounds: ${ROUNDS} (interleaved BullMQ, Echo; FLUSHALL before each run); warm-up rounds: ${WARMUP} of ${WARMUP_JOBS} jobs, not counted`,
    `- payload: \`{ i, pad: 'x'.repeat(${PAD}) }\`; handlers read the payload and return; 4 KB row: ${JOBS_4K} jobs with a ${PAD_4K}-byte pad`,
    `- BullMQ: addBulk in batches of ${CFG.chunk}; Worker concurrency ${CFG.concurrency}, removeOnComplete ${CFG.bullRemoveOnComplete}, other options default`,
    `- Echo: enqueueMany (one script per 1,000 jobs); Worker concurrency ${CFG.concurrency}, default options (events on, lock markers on); batch mode = BatchWorker size ${CFG.batch}, ${CFG.batchInflight} batch(es) in flight, otherwise default options (events on, lock markers on), handler answers 'ok' per member; reference row = bare completeAndClaim(${CFG.batch}) loop (no events, lock markers, pump or wake connection)`,
    `- latency: ${LATENCY_JOBS} jobs per round, each enqueued alone into an idle worker at concurrency 1 (both sides), after the previous one settled`,
    '',
    'Cells: median (min–max) over the measured rounds. Ratio: Echo/BullMQ taken within each round, then median (min–max).',
    'Throughput rows: higher is better, ratio > 1 means Echo is faster. Latency, memory, command and CPU rows: lower is better, ratio < 1 means Echo uses less.',
    'CPU rows are CPU time, not wall time: less sensitive to a busy machine than jobs/s, though not immune (shared caches, frequency).',
    '',
    table(['measure', 'BullMQ', 'Echo', 'Echo/BullMQ'], rows),
    '',
    '## Goals (issues 25 and 40)',
    '',
    'Each goal met, or the measured reason it is not (medians over the rounds; CPU per job is load-insensitive, jobs/s is not: say whether the machine was quiet). keep.completed (≥ 0.95x of keeping nothing, ≤ 8 commands/job) and the bus rows print after this report (`settings-cost.ts`, `bus-vs-raw.ts`), unless `--companions false`.',
    '',
    ...goals,
    '',
    ...scaleLines,
    '',
    '## Details (last round)',
    '',
    `- BullMQ memory: ${structureLines(lastBull.memory, lastBull.enqueue.jobs)}`,
    `- Echo memory: ${structureLines(lastEcho.memory, lastEcho.enqueue.jobs)}`,
    `- BullMQ enqueue, calls/job: ${breakdown(lastBull.enqueue)}`,
    `- Echo enqueue, calls/job: ${breakdown(lastEcho.enqueue)}`,
    `- BullMQ process, calls/job: ${breakdown(lastBull.process)}`,
    `- Echo process one by one, calls/job: ${breakdown(lastEcho.process)}`,
    `- Echo BatchWorker, calls/job: ${breakdown(ep(lastEcho).batch)}`,
    `- Echo reference loop, calls/job: ${breakdown(ep(lastEcho).batchLoop)}`,
  ].join('\n');
}

/** The scale row: memory and enqueue rate at `BIG` waiting jobs, and how each moved from `JOBS`. */
function scaleTable(scale: Scale, bull: readonly Round[], echo: readonly Round[]): string[] {
  const small = (rounds: readonly Round[], f: (r: Round) => number): number => spread(rounds.map(f)).median;
  const rate = (f: Fill): number => perSecond(f.enqueue);
  const bullRate = small(bull, rate);
  const echoRate = small(echo, rate);
  const bullMem = small(bull, (r) => r.memory.keysPerJob);
  const echoMem = small(echo, (r) => r.memory.keysPerJob);
  const cells = (label: string, bv: number, ev: number, ratio = fmtRatio(ev / bv)): string[] => [label, fmt(bv), fmt(ev), ratio];
  return [
    `### ${fmt(BIG)} waiting jobs (one fill per system, after the rounds)`,
    '',
    table(
      ['measure', 'BullMQ', 'Echo', 'Echo/BullMQ'],
      [
        cells(`enqueue, jobs/s, ${fmt(BIG)} jobs (higher is better)`, rate(scale.bull), rate(scale.echo)),
        cells(`memory per pending job, MEMORY USAGE, bytes, ${fmt(BIG)} jobs (lower is better)`, scale.bull.memory.keysPerJob, scale.echo.memory.keysPerJob),
        cells(`memory per pending job, used_memory delta, bytes, ${fmt(BIG)} jobs (lower is better)`, scale.bull.memory.infoPerJob, scale.echo.memory.infoPerJob),
        cells(`enqueue rate at ${fmt(BIG)} / at ${fmt(JOBS)} (median of the rounds); ≥ 0.80 holds`, rate(scale.bull) / bullRate, rate(scale.echo) / echoRate, ''),
        cells(`memory per job at ${fmt(BIG)} / at ${fmt(JOBS)}; ≤ 1.20 holds`, scale.bull.memory.keysPerJob / bullMem, scale.echo.memory.keysPerJob / echoMem, ''),
      ],
    ),
  ];
}

async function bullRound(side: BullSide, n: number, full: boolean): Promise<Round> {
  const main = await side.fillAndProcess(n, PAD);
  if (!full) return { ...main, latency: [], paced: [] };
  const big4k = JOBS_4K > 0 ? await side.fillAndProcess(JOBS_4K, PAD_4K) : undefined;
  const latency = LATENCY_JOBS > 0 ? await side.latency(LATENCY_JOBS, PAD) : [];
  const paced = PACED_JOBS > 0 ? await side.pacedLatency(PACED_JOBS, PACED_RATE, PAD) : [];
  return { ...main, ...(big4k ? { big4k } : {}), latency, paced };
}

async function echoRound(side: EchoSide, n: number, full: boolean): Promise<Round> {
  const main = await side.fullRound(n, PAD);
  const round = { enqueue: main.enqueue, memory: main.memory, process: main.process, echo: main };
  if (!full) return { ...round, latency: [], paced: [] };
  const big4k = JOBS_4K > 0 ? await side.fillAndProcess(JOBS_4K, PAD_4K) : undefined;
  const latency = LATENCY_JOBS > 0 ? await side.latency(LATENCY_JOBS, PAD) : [];
  const paced = PACED_JOBS > 0 ? await side.pacedLatency(PACED_JOBS, PACED_RATE, PAD) : [];
  return { ...round, ...(big4k ? { big4k } : {}), latency, paced };
}

async function main(): Promise<void> {
  const target = await acquireTarget();
  const admin = new Admin(target);
  try {
    if (target.external) progress(`using REDIS_URL ${target.host}:${target.port}; it is FLUSHALLed between runs`);
    const header = await machineHeader(admin);
    const bullSide = new BullSide(admin, target, CFG);
    const echoSide = new EchoSide(admin, target, CFG);
    const bull: Round[] = [];
    const echo: Round[] = [];
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const warm = r < WARMUP;
      const n = warm ? WARMUP_JOBS : JOBS;
      const label = warm ? `warm-up ${r + 1}/${WARMUP}` : `round ${r - WARMUP + 1}/${ROUNDS}`;
      const b = await bullRound(bullSide, n, !warm);
      progress(`${label} BullMQ: enqueue ${fmt(perSecond(b.enqueue))}/s, process ${fmt(perSecond(b.process))}/s`);
      const e = await echoRound(echoSide, n, !warm);
      const ee = e.echo;
      progress(`${label} Echo:   enqueue ${fmt(perSecond(e.enqueue))}/s, process ${fmt(perSecond(e.process))}/s, BatchWorker ${ee ? fmt(perSecond(ee.batch)) : 'n/a'}/s, reference loop ${ee ? fmt(perSecond(ee.batchLoop)) : 'n/a'}/s`);
      if (!warm) {
        bull.push(b);
        echo.push(e);
      }
    }
    let scale: Scale | undefined;
    if (BIG > 0) {
      progress(`scale: filling ${fmt(BIG)} jobs per system`);
      const bullBig = await bullSide.fillOnly(BIG, PAD);
      progress(`scale BullMQ: enqueue ${fmt(perSecond(bullBig.enqueue))}/s, ${fmt(bullBig.memory.keysPerJob)} B/job`);
      const echoBig = await echoSide.fillOnly(BIG, PAD);
      progress(`scale Echo:   enqueue ${fmt(perSecond(echoBig.enqueue))}/s, ${fmt(echoBig.memory.keysPerJob)} B/job`);
      scale = { bull: bullBig, echo: echoBig };
    }
    await admin.flushAll();
    const path = publish('latest.md', render(header, bull, echo, scale));
    progress(`written to ${path}`);
  } finally {
    await admin.close();
    await target.stop();
  }
  if (COMPANIONS) runCompanions();
}

/**
 * The rows of issue 40 that other benches own, run after this one in their own processes (each on
 * its own server, so nothing here skews them): the bus against raw ioredis, and kept results
 * against keeping none.
 */
function runCompanions(): void {
  const quick = QUICK ? ['--quick'] : [];
  const runs: [string, string[]][] = [
    ['bus-vs-raw.ts', QUICK ? ['--records', '5000', '--rounds', '2'] : []],
    ['settings-cost.ts', ['--modes=retention', ...quick]],
  ];
  for (const [script, args] of runs) {
    progress(`running ${script} ${args.join(' ')}`.trim());
    const run = spawnSync(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', fileURLToPath(new URL(`./${script}`, import.meta.url)), ...args], { stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`${script} exited with ${String(run.status ?? run.signal)}`);
  }
}

await main();
