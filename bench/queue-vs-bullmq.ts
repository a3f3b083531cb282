/**
 * Echo's queue against BullMQ on one redis-server: bulk enqueue, processing one by one (concurrency
 * 50), Echo's batch mode, memory per pending job and server-side commands per job. Rounds are
 * interleaved (BullMQ, Echo, BullMQ, Echo, ...) and every ratio is taken within a round, so the
 * machine's drift between rounds mostly cancels. See README.md.
 *
 *   pnpm bench                      # 20,000 jobs, 5 rounds
 *   JOBS=2000 ROUNDS=2 pnpm bench   # a quick correctness run
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { BatchWorker, Queue, Worker, type BatchVerdict, type ClaimedJob } from '@echo/queue';
import { Admin, machineHeader, snapshotDelta, totalCalls, type SnapshotDelta } from './lib/admin.js';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread, waitUntil } from './lib/stats.js';
import { acquireTarget, type BenchTarget } from './lib/target.js';

const JOBS = intOption('jobs', 20_000);
const ROUNDS = intOption('rounds', 5);
const WARMUP = intOption('warmup', 1, 0);
const WARMUP_JOBS = intOption('warmup-jobs', Math.min(JOBS, 2_000));
const CONCURRENCY = intOption('concurrency', 50);
const BATCH = intOption('batch', 50);
/** Batches the Echo BatchWorker keeps in flight (its `concurrency`); 1 is its default. */
const BATCH_INFLIGHT = intOption('batch-inflight', 1);
const CHUNK = intOption('chunk', 1_000);
const SAMPLE = intOption('sample', 200);
const PAD = intOption('pad', 64, 0);
const TIMEOUT_MS = intOption('timeout-s', 300) * 1000;
const BULL_REMOVE_ON_COMPLETE = boolOption('bull-remove-on-complete', true);
const LEASE_MS = 30_000;
const QUEUE = 'bench';

interface Payload {
  readonly i: number;
  readonly pad: string;
}

/** What one system did in one phase of one round. */
interface Phase {
  readonly ms: number;
  readonly jobs: number;
  /** Server-side calls per command name (`INFO commandstats` delta). */
  readonly commands: Map<string, number>;
  /** redis-server CPU time (`INFO cpu` delta), µs. */
  readonly serverCpuUs: number;
  /** This Node process's CPU time (`process.cpuUsage()` delta), µs. */
  readonly clientCpuUs: number;
}

function phase(ms: number, jobs: number, d: SnapshotDelta): Phase {
  return { ms, jobs, commands: d.calls, serverCpuUs: d.serverCpuUs, clientCpuUs: d.clientCpuUs };
}

interface Memory {
  /** Mean `MEMORY USAGE` of the sampled job keys plus every other key of the queue, per job. */
  readonly keysPerJob: number;
  /** `used_memory` after the fill minus before, per job. */
  readonly infoPerJob: number;
  /** The queue's non-job keys and their size in bytes. */
  readonly structure: readonly (readonly [string, number])[];
  readonly jobKeyMean: number;
}

interface Round {
  readonly enqueue: Phase;
  readonly memory: Memory;
  readonly process: Phase;
  /** Echo only: the BatchWorker. */
  readonly batch?: Phase;
  /** Echo only: a bare claimBatch + complete loop, for reference. */
  readonly batchLoop?: Phase;
}

const perSecond = (p: Phase): number => (p.jobs / p.ms) * 1000;
const perJob = (p: Phase): number => totalCalls(p.commands) / p.jobs;
const serverUs = (p: Phase): number => p.serverCpuUs / p.jobs;
const clientUs = (p: Phase): number => p.clientCpuUs / p.jobs;

function payloads(n: number): Payload[] {
  const pad = 'x'.repeat(PAD);
  return Array.from({ length: n }, (_, i) => ({ i, pad }));
}

/** Sum of `i` over a full processing phase: each job must have run exactly once. */
const expectedChecksum = (n: number): number => (n * (n - 1)) / 2;

function sample<T>(items: readonly T[], k: number): T[] {
  const copy = [...items];
  const take = Math.min(k, copy.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(Math.random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, take);
}

async function measureMemory(admin: Admin, jobKeys: readonly string[], pattern: string, isJobKey: (key: string) => boolean, before: number): Promise<Memory> {
  const after = await admin.usedMemory();
  const n = jobKeys.length;
  const sampled = sample(jobKeys, SAMPLE);
  let sum = 0;
  for (const key of sampled) sum += await admin.memoryUsage(key);
  const jobKeyMean = sum / sampled.length;
  const structure: [string, number][] = [];
  for (const key of await admin.keys(pattern)) {
    if (!isJobKey(key)) structure.push([key, await admin.memoryUsage(key, 0)]);
  }
  structure.sort((a, b) => b[1] - a[1]);
  const structureBytes = structure.reduce((s, [, bytes]) => s + bytes, 0);
  return { keysPerJob: jobKeyMean + structureBytes / n, infoPerJob: (after - before) / n, structure, jobKeyMean };
}

function bullConnection(target: BenchTarget): Record<string, unknown> {
  return {
    host: target.host,
    port: target.port,
    db: target.db,
    ...(target.password === undefined ? {} : { password: target.password }),
    maxRetriesPerRequest: null,
    disableClientInfo: true,
  };
}

async function bullRound(admin: Admin, target: BenchTarget, n: number): Promise<Round> {
  await admin.flushAll();
  const connection = bullConnection(target);
  const queue = new BullQueue<Payload>(QUEUE, { connection });
  try {
    await queue.waitUntilReady();
    const items = payloads(n);

    const mem0 = await admin.usedMemory();
    const c0 = await admin.snapshot();
    const t0 = performance.now();
    const ids: string[] = [];
    for (let start = 0; start < n; start += CHUNK) {
      const jobs = await queue.addBulk(items.slice(start, start + CHUNK).map((data) => ({ name: 'job', data })));
      for (const job of jobs) ids.push(job.id!);
    }
    const enqueueMs = performance.now() - t0;
    const c1 = await admin.snapshot();
    const prefix = `bull:${QUEUE}:`;
    const memory = await measureMemory(
      admin,
      ids.map((id) => prefix + id),
      `${prefix}*`,
      (key) => /^\d+$/.test(key.slice(prefix.length)),
      mem0,
    );
    const waiting = await queue.getWaitingCount();
    if (waiting !== n) throw new Error(`BullMQ: ${waiting} waiting after enqueueing ${n}`);

    let completed = 0;
    let checksum = 0;
    const errors: unknown[] = [];
    const c2 = await admin.snapshot();
    const t1 = performance.now();
    const worker = new BullWorker<Payload>(
      QUEUE,
      (job) => {
        checksum += job.data.i;
        return Promise.resolve();
      },
      { connection, concurrency: CONCURRENCY, ...(BULL_REMOVE_ON_COMPLETE ? { removeOnComplete: { count: 0 } } : {}) },
    );
    worker.on('completed', () => completed++);
    worker.on('failed', (_job, error) => errors.push(error));
    worker.on('error', (error) => errors.push(error));
    let processMs = 0;
    try {
      await waitUntil(() => completed >= n || errors.length > 0, TIMEOUT_MS, `BullMQ to complete ${n} jobs`);
      processMs = performance.now() - t1;
    } finally {
      await worker.close();
    }
    const c3 = await admin.snapshot();
    if (errors.length > 0) throw new Error(`BullMQ worker failed: ${String(errors[0])}`);
    if (checksum !== expectedChecksum(n)) throw new Error(`BullMQ: checksum ${checksum}, expected ${expectedChecksum(n)}`);
    const left = await queue.getJobCounts('wait', 'active', 'delayed', 'failed');
    if (Object.values(left).some((count) => count !== 0)) throw new Error(`BullMQ: jobs left after processing: ${JSON.stringify(left)}`);

    return {
      enqueue: phase(enqueueMs, n, snapshotDelta(c0, c1)),
      memory,
      process: phase(processMs, n, snapshotDelta(c2, c3)),
    };
  } finally {
    await queue.close();
  }
}

async function echoFill(queue: Queue<Payload>, items: readonly Payload[]): Promise<string[]> {
  const verdicts = await queue.enqueueMany(items.map((payload) => ({ payload })));
  return verdicts.map((v) => {
    if (v.status !== 'enqueued') throw new Error(`Echo: enqueue answered ${v.status} for ${v.id}`);
    return v.id;
  });
}

async function assertEchoDrained(queue: Queue<Payload>, what: string): Promise<void> {
  const left = await queue.counts('pending', 'active', 'schedule', 'dead');
  if (Object.values(left).some((count) => count !== 0)) throw new Error(`Echo ${what}: jobs left: ${JSON.stringify(left)}`);
}

async function echoRound(admin: Admin, target: BenchTarget, n: number): Promise<Round> {
  await admin.flushAll();
  const queue = await Queue.open<Payload>(QUEUE, { connect: target.url });
  try {
    const items = payloads(n);

    const mem0 = await admin.usedMemory();
    const c0 = await admin.snapshot();
    const t0 = performance.now();
    const verdicts = await queue.enqueueMany(items.map((payload) => ({ payload })));
    const enqueueMs = performance.now() - t0;
    const c1 = await admin.snapshot();
    const ids = verdicts.map((v) => {
      if (v.status !== 'enqueued') throw new Error(`Echo: enqueue answered ${v.status} for ${v.id}`);
      return v.id;
    });
    const root = queue.keys.jobRoot;
    const memory = await measureMemory(
      admin,
      ids.map((id) => root + id),
      `${queue.keys.base}*`,
      (key) => key.startsWith(root) && !key.slice(root.length).includes(':'),
      mem0,
    );

    // One by one: the production Worker with its defaults (events on, lock markers on).
    let checksum = 0;
    const errors: unknown[] = [];
    const c2 = await admin.snapshot();
    const t1 = performance.now();
    const worker = await Worker.start(
      queue,
      (job: ClaimedJob<Payload>) => {
        checksum += job.payload.i;
      },
      { concurrency: CONCURRENCY, onError: (error) => errors.push(error) },
    );
    let processMs = 0;
    try {
      await waitUntil(() => worker.stats().completed >= n || errors.length > 0, TIMEOUT_MS, `Echo to complete ${n} jobs`);
      processMs = performance.now() - t1;
    } finally {
      await worker.close();
    }
    const c3 = await admin.snapshot();
    if (errors.length > 0) throw new Error(`Echo worker reported: ${String(errors[0])}`);
    if (checksum !== expectedChecksum(n)) throw new Error(`Echo: checksum ${checksum}, expected ${expectedChecksum(n)}`);
    await assertEchoDrained(queue, 'one by one');

    // Batch mode: the production BatchWorker with its defaults (one batch in flight, events on,
    // lock markers on); the handler answers 'ok' for every member.
    await admin.flushAll();
    await echoFill(queue, items);
    let batchChecksum = 0;
    const batchErrors: unknown[] = [];
    const c4 = await admin.snapshot();
    const t2 = performance.now();
    const batchWorker = await BatchWorker.start(
      queue,
      (jobs: readonly ClaimedJob<Payload>[]) => {
        const verdicts = new Map<string, BatchVerdict>();
        for (const job of jobs) {
          batchChecksum += job.payload.i;
          verdicts.set(job.id, 'ok');
        }
        return verdicts;
      },
      { size: BATCH, concurrency: BATCH_INFLIGHT, onError: (error) => batchErrors.push(error) },
    );
    let batchMs = 0;
    try {
      await waitUntil(() => batchWorker.stats().completed >= n || batchErrors.length > 0, TIMEOUT_MS, `Echo BatchWorker to complete ${n} jobs`);
      batchMs = performance.now() - t2;
    } finally {
      await batchWorker.close();
    }
    const c5 = await admin.snapshot();
    if (batchErrors.length > 0) throw new Error(`Echo BatchWorker reported: ${String(batchErrors[0])}`);
    if (batchChecksum !== expectedChecksum(n)) throw new Error(`Echo batch: checksum ${batchChecksum}, expected ${expectedChecksum(n)}`);
    await assertEchoDrained(queue, 'batch');

    // Reference: the floor under the batch path, claimBatch + concurrent complete() in a bare loop
    // (no events, no lock markers, no pump, no wake connection).
    await admin.flushAll();
    await echoFill(queue, items);
    let loopChecksum = 0;
    let done = 0;
    const c6 = await admin.snapshot();
    const t3 = performance.now();
    while (done < n) {
      const jobs = await queue.claimBatch(BATCH, LEASE_MS);
      if (jobs.length === 0) throw new Error(`Echo batch loop: nothing to claim after ${done} of ${n}`);
      await Promise.all(
        jobs.map((job) => {
          loopChecksum += job.payload.i;
          return queue.complete(job);
        }),
      );
      done += jobs.length;
    }
    const loopMs = performance.now() - t3;
    const c7 = await admin.snapshot();
    if (loopChecksum !== expectedChecksum(n)) throw new Error(`Echo batch loop: checksum ${loopChecksum}, expected ${expectedChecksum(n)}`);
    await assertEchoDrained(queue, 'batch loop');

    return {
      enqueue: phase(enqueueMs, n, snapshotDelta(c0, c1)),
      memory,
      process: phase(processMs, n, snapshotDelta(c2, c3)),
      batch: phase(batchMs, n, snapshotDelta(c4, c5)),
      batchLoop: phase(loopMs, n, snapshotDelta(c6, c7)),
    };
  } finally {
    await queue.close();
  }
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

function render(header: readonly string[], bull: readonly Round[], echo: readonly Round[]): string {
  const b = (f: (r: Round) => number): number[] => bull.map(f);
  const e = (f: (r: Round) => number): number[] => echo.map(f);
  const need = (p: Phase | undefined): Phase => {
    if (!p) throw new Error('Echo round without a batch phase');
    return p;
  };
  const batch = (r: Round): Phase => need(r.batch);
  const loop = (r: Round): Phase => need(r.batchLoop);
  const lastBull = bull[bull.length - 1] as Round;
  const lastEcho = echo[echo.length - 1] as Round;
  return [
    '# Echo vs BullMQ',
    '',
    ...header,
    `- jobs per run: ${JOBS}; measured rounds: ${ROUNDS} (interleaved BullMQ, Echo; FLUSHALL before each run); warm-up rounds: ${WARMUP} of ${WARMUP_JOBS} jobs, not counted`,
    `- payload: \`{ i, pad: 'x'.repeat(${PAD}) }\`; handlers read the payload and return`,
    `- BullMQ: addBulk in batches of ${CHUNK}; Worker concurrency ${CONCURRENCY}, removeOnComplete ${BULL_REMOVE_ON_COMPLETE}, other options default`,
    `- Echo: enqueueMany; Worker concurrency ${CONCURRENCY}, default options (events on, lock markers on); batch mode = BatchWorker size ${BATCH}, ${BATCH_INFLIGHT} batch(es) in flight, otherwise default options (events on, lock markers on), handler answers 'ok' per member; reference row = bare claimBatch(${BATCH}) + concurrent complete() loop (no events, lock markers, pump or wake connection)`,
    '',
    'Cells: median (min–max) over the measured rounds. Ratio: Echo/BullMQ taken within each round, then median (min–max).',
    'Throughput rows: higher is better, ratio > 1 means Echo is faster. Memory, command and CPU rows: lower is better, ratio < 1 means Echo uses less.',
    'CPU rows are CPU time, not wall time: less sensitive to a busy machine than jobs/s, though not immune (shared caches, frequency).',
    '',
    table(
      ['measure', 'BullMQ', 'Echo', 'Echo/BullMQ'],
      [
        row('enqueue, jobs/s (higher is better)', b((r) => perSecond(r.enqueue)), e((r) => perSecond(r.enqueue))),
        row(`process one by one, c${CONCURRENCY}, jobs/s (higher is better)`, b((r) => perSecond(r.process)), e((r) => perSecond(r.process))),
        row(`process batch: Echo BatchWorker(${BATCH}) vs BullMQ c${CONCURRENCY}, jobs/s (higher is better)`, b((r) => perSecond(r.process)), e((r) => perSecond(batch(r)))),
        row(`reference: Echo claimBatch(${BATCH}) loop vs BullMQ c${CONCURRENCY}, jobs/s (higher is better)`, b((r) => perSecond(r.process)), e((r) => perSecond(loop(r)))),
        row('memory per pending job, MEMORY USAGE, bytes (lower is better)', b((r) => r.memory.keysPerJob), e((r) => r.memory.keysPerJob)),
        row('memory per pending job, used_memory delta, bytes (lower is better)', b((r) => r.memory.infoPerJob), e((r) => r.memory.infoPerJob)),
        row('server commands per job, enqueue (lower is better)', b((r) => perJob(r.enqueue)), e((r) => perJob(r.enqueue))),
        row('server commands per job, process one by one (lower is better)', b((r) => perJob(r.process)), e((r) => perJob(r.process))),
        row(`server commands per job, BatchWorker vs BullMQ c${CONCURRENCY} (lower is better)`, b((r) => perJob(r.process)), e((r) => perJob(batch(r)))),
        row(`server commands per job, reference claimBatch loop vs BullMQ c${CONCURRENCY} (lower is better)`, b((r) => perJob(r.process)), e((r) => perJob(loop(r)))),
        row('redis-server CPU per job, enqueue, µs (lower is better)', b((r) => serverUs(r.enqueue)), e((r) => serverUs(r.enqueue))),
        row('redis-server CPU per job, process one by one, µs (lower is better)', b((r) => serverUs(r.process)), e((r) => serverUs(r.process))),
        row(`redis-server CPU per job, BatchWorker vs BullMQ c${CONCURRENCY}, µs (lower is better)`, b((r) => serverUs(r.process)), e((r) => serverUs(batch(r)))),
        row('client (Node) CPU per job, enqueue, µs (lower is better)', b((r) => clientUs(r.enqueue)), e((r) => clientUs(r.enqueue))),
        row('client (Node) CPU per job, process one by one, µs (lower is better)', b((r) => clientUs(r.process)), e((r) => clientUs(r.process))),
        row(`client (Node) CPU per job, BatchWorker vs BullMQ c${CONCURRENCY}, µs (lower is better)`, b((r) => clientUs(r.process)), e((r) => clientUs(batch(r)))),
      ],
    ),
    '',
    '## Details (last round)',
    '',
    `- BullMQ memory: ${structureLines(lastBull.memory, lastBull.enqueue.jobs)}`,
    `- Echo memory: ${structureLines(lastEcho.memory, lastEcho.enqueue.jobs)}`,
    `- BullMQ enqueue, calls/job: ${breakdown(lastBull.enqueue)}`,
    `- Echo enqueue, calls/job: ${breakdown(lastEcho.enqueue)}`,
    `- BullMQ process, calls/job: ${breakdown(lastBull.process)}`,
    `- Echo process one by one, calls/job: ${breakdown(lastEcho.process)}`,
    `- Echo BatchWorker, calls/job: ${breakdown(batch(lastEcho))}`,
    `- Echo claimBatch loop, calls/job: ${breakdown(loop(lastEcho))}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const target = await acquireTarget();
  const admin = new Admin(target);
  try {
    if (target.external) progress(`using REDIS_URL ${target.host}:${target.port}; it is FLUSHALLed between runs`);
    const header = await machineHeader(admin);
    const bull: Round[] = [];
    const echo: Round[] = [];
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const warm = r < WARMUP;
      const n = warm ? WARMUP_JOBS : JOBS;
      const label = warm ? `warm-up ${r + 1}/${WARMUP}` : `round ${r - WARMUP + 1}/${ROUNDS}`;
      const b = await bullRound(admin, target, n);
      progress(`${label} BullMQ: enqueue ${fmt(perSecond(b.enqueue))}/s, process ${fmt(perSecond(b.process))}/s`);
      const e = await echoRound(admin, target, n);
      progress(`${label} Echo:   enqueue ${fmt(perSecond(e.enqueue))}/s, process ${fmt(perSecond(e.process))}/s, BatchWorker ${e.batch ? fmt(perSecond(e.batch)) : 'n/a'}/s, claimBatch loop ${e.batchLoop ? fmt(perSecond(e.batchLoop)) : 'n/a'}/s`);
      if (!warm) {
        bull.push(b);
        echo.push(e);
      }
    }
    await admin.flushAll();
    const path = publish('latest.md', render(header, bull, echo));
    progress(`written to ${path}`);
  } finally {
    await admin.close();
    await target.stop();
  }
}

await main();
