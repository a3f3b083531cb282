/**
 * The same one-by-one benchmark three ways on one redis-server: BullMQ, the same BullMQ code with
 * the import changed to `@echo/bullmq`, and native Echo (`Queue.open` + `Worker.start`). Each round
 * fills N jobs (addBulk / enqueueMany in chunks), then times a Worker at concurrency C draining them
 * one by one: jobs/s, redis-server CPU per job and this process's CPU per job. Rounds are
 * interleaved (BullMQ, drop-in, native, ...) and ratios are taken within a round.
 *
 *   pnpm --filter @echo/bench bench:bullmq-dropin               # 10,000 jobs, 5 rounds
 *   pnpm --filter @echo/bench bench:bullmq-dropin --quick       # 2,000 jobs, 3 rounds
 */
import * as dropin from '@echo/bullmq';
import { Queue as EchoQueue, Worker as EchoWorker } from '@echo/queue';
import * as bull from 'bullmq';
import { Admin, machineHeader } from './lib/admin.js';
import { boolOption, intOption } from './lib/options.js';
import { clientUs, expectedChecksum, payloads, perSecond, phase, serverUs, type Payload, type Phase } from './lib/phase.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread, waitUntil } from './lib/stats.js';
import { acquireTarget, type BenchTarget } from './lib/target.js';

const QUICK = boolOption('quick', false);
const JOBS = intOption('jobs', QUICK ? 2_000 : 10_000);
const ROUNDS = intOption('rounds', QUICK ? 3 : 5);
const CONCURRENCY = intOption('concurrency', 50);
const PAD = intOption('pad', 64, 0);
const CHUNK = 1_000;
const QUEUE = 'dropin';

/** The slice of BullMQ's API the benchmark uses; both `bullmq` and `@echo/bullmq` provide it. */
interface BullLike {
  Queue: new (name: string, opts: { connection: object }) => {
    addBulk(jobs: { name: string; data: Payload }[]): Promise<unknown[]>;
    getWaitingCount(): Promise<number>;
    close(): Promise<void>;
  };
  Worker: new (name: string, processor: (job: { data: Payload }) => Promise<void>, opts: object) => {
    on(event: 'completed', listener: () => void): unknown;
    on(event: 'failed', listener: (job: unknown, error: Error) => void): unknown;
    close(): Promise<void>;
  };
}

type System = 'BullMQ' | '@echo/bullmq' | 'Echo native';

/** One round of one system: fill, then drain one by one, timing the drain only. */
async function bullRound(api: BullLike, admin: Admin, connection: object, label: System): Promise<Phase> {
  await admin.flushAll();
  const queue = new api.Queue(QUEUE, { connection });
  const items = payloads(JOBS, PAD);
  for (let at = 0; at < JOBS; at += CHUNK) await queue.addBulk(items.slice(at, at + CHUNK).map((data) => ({ name: 'job', data })));
  const waiting = await queue.getWaitingCount();
  if (waiting !== JOBS) throw new Error(`${label}: ${String(waiting)} waiting after adding ${String(JOBS)}`);
  let completed = 0;
  let checksum = 0;
  const errors: unknown[] = [];
  const before = await admin.snapshot();
  const t0 = performance.now();
  const worker = new api.Worker(QUEUE, (job) => {
    checksum += job.data.i;
    return Promise.resolve();
  }, { connection, concurrency: CONCURRENCY, removeOnComplete: { count: 0 } });
  worker.on('completed', () => completed++);
  worker.on('failed', (_job, error) => errors.push(error));
  await waitUntil(() => completed >= JOBS || errors.length > 0, 300_000, `${label} to complete ${String(JOBS)} jobs`);
  const ms = performance.now() - t0;
  const after = await admin.snapshot();
  await worker.close();
  await queue.close();
  if (errors.length > 0) throw new Error(`${label}: ${String(errors[0])}`);
  if (checksum !== expectedChecksum(JOBS)) throw new Error(`${label}: checksum ${String(checksum)}`);
  return phase(ms, JOBS, before, after);
}

async function nativeRound(admin: Admin, target: BenchTarget): Promise<Phase> {
  await admin.flushAll();
  const queue = await EchoQueue.open<Payload>(QUEUE, { connect: target.url });
  const items = payloads(JOBS, PAD);
  for (let at = 0; at < JOBS; at += CHUNK) await queue.enqueueMany(items.slice(at, at + CHUNK).map((payload) => ({ payload })));
  let completed = 0;
  let checksum = 0;
  const before = await admin.snapshot();
  const t0 = performance.now();
  const worker = await EchoWorker.start(queue, (job) => {
    checksum += job.payload.i;
  }, { concurrency: CONCURRENCY });
  worker.on('completed', () => completed++);
  await waitUntil(() => completed >= JOBS, 300_000, `Echo to complete ${String(JOBS)} jobs`);
  const ms = performance.now() - t0;
  const after = await admin.snapshot();
  await worker.close();
  await queue.close();
  if (checksum !== expectedChecksum(JOBS)) throw new Error(`Echo: checksum ${String(checksum)}`);
  return phase(ms, JOBS, before, after);
}

async function main(): Promise<void> {
  const target = await acquireTarget();
  const admin = new Admin(target);
  const connection = { host: target.host, port: target.port, ...(target.password === undefined ? {} : { password: target.password }), maxRetriesPerRequest: null };
  try {
    const header = await machineHeader(admin);
    const rounds: Record<System, Phase[]> = { BullMQ: [], '@echo/bullmq': [], 'Echo native': [] };
    // A warm-up round of each, not counted: script loading and JIT.
    await bullRound(bull as unknown as BullLike, admin, connection, 'BullMQ');
    await bullRound(dropin, admin, { host: target.host, port: target.port }, '@echo/bullmq');
    await nativeRound(admin, target);
    for (let r = 1; r <= ROUNDS; r++) {
      rounds.BullMQ.push(await bullRound(bull as unknown as BullLike, admin, connection, 'BullMQ'));
      rounds['@echo/bullmq'].push(await bullRound(dropin, admin, { host: target.host, port: target.port }, '@echo/bullmq'));
      rounds['Echo native'].push(await nativeRound(admin, target));
      progress(`round ${String(r)}/${String(ROUNDS)}: ${(Object.keys(rounds) as System[]).map((s) => `${s} ${fmt(perSecond(rounds[s][r - 1]!))}/s`).join(', ')}`);
    }
    const cells = (f: (p: Phase) => number): string[] => (Object.keys(rounds) as System[]).map((s) => fmtSpread(spread(rounds[s].map(f))));
    const ratio = (f: (p: Phase) => number, a: System, b: System): string => fmtSpread(spread(pairedRatios(rounds[a].map(f), rounds[b].map(f))), fmtRatio);
    const rows = [
      ['jobs/s (higher is better)', ...cells(perSecond), ratio(perSecond, '@echo/bullmq', 'BullMQ'), ratio(perSecond, '@echo/bullmq', 'Echo native')],
      ['redis-server CPU per job, µs (lower is better)', ...cells(serverUs), ratio(serverUs, '@echo/bullmq', 'BullMQ'), ratio(serverUs, '@echo/bullmq', 'Echo native')],
      ['client (Node) CPU per job, µs (lower is better)', ...cells(clientUs), ratio(clientUs, '@echo/bullmq', 'BullMQ'), ratio(clientUs, '@echo/bullmq', 'Echo native')],
    ];
    const path = publish('bullmq-dropin.md', [
      '# BullMQ, the same code on @echo/bullmq, and native Echo',
      '',
      ...header,
      `- ${String(JOBS)} jobs per round, ${String(ROUNDS)} measured rounds after one warm-up of each, interleaved BullMQ, @echo/bullmq, native; FLUSHALL before each`,
      `- one by one: a Worker at concurrency ${String(CONCURRENCY)} drains jobs filled beforehand (addBulk / enqueueMany, ${String(CHUNK)} per call); only the drain is timed`,
      `- BullMQ and @echo/bullmq run the same function (only the module differs), removeOnComplete { count: 0 }; native Echo: Worker.start with default options`,
      '',
      'Cells: median (min–max). Ratios taken within each round.',
      '',
      table(['measure', 'BullMQ', '@echo/bullmq', 'Echo native', '@echo/bullmq / BullMQ', '@echo/bullmq / native'], rows),
    ].join('\n'));
    progress(`written to ${path}`);
  } finally {
    await admin.flushAll();
    await admin.close();
    await target.stop();
  }
}

await main();
