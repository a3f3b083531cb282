import { snapshotDelta, totalCalls, type Admin, type Snapshot } from './admin.js';
import { waitUntil } from './stats.js';

/** The payload both systems carry: `i` is summed by the handlers to prove each job ran once. */
export interface Payload {
  readonly i: number;
  readonly pad: string;
}

/**
 * What one system did in one phase of one round. `jobs` counts its operations, whatever they are
 * (jobs, stream records). A system that does not run on the metered redis-server (NATS JetStream)
 * has `NaN` server CPU and reads and no commands: see {@link onRedis}.
 */
export interface Phase {
  readonly ms: number;
  readonly jobs: number;
  /** Server-side calls per command name (`INFO commandstats` delta). */
  readonly commands: Map<string, number>;
  /** redis-server CPU time (`INFO cpu` delta), µs. */
  readonly serverCpuUs: number;
  /** This Node process's CPU time (`process.cpuUsage()` delta), µs. */
  readonly clientCpuUs: number;
  /** Server socket reads (`total_reads_processed` delta): round trips, a pipelined burst counting once. */
  readonly reads: number;
}

/** The phase between two snapshots. */
export function phase(ms: number, jobs: number, before: Snapshot, after: Snapshot): Phase {
  const d = snapshotDelta(before, after);
  return { ms, jobs, commands: d.calls, serverCpuUs: d.serverCpuUs, clientCpuUs: d.clientCpuUs, reads: d.reads };
}

/** The same phase for a system whose server is not the metered Redis: only its wall time and Node CPU are its own. */
export const offRedis = (p: Phase): Phase => ({ ...p, commands: new Map(), serverCpuUs: Number.NaN, reads: Number.NaN });

/** False for a phase of a system whose server is not the metered Redis ({@link offRedis}). */
export const onRedis = (p: Phase): boolean => !Number.isNaN(p.serverCpuUs);

export const perSecond = (p: Phase): number => (p.jobs / p.ms) * 1000;
export const perJob = (p: Phase): number => (onRedis(p) ? totalCalls(p.commands) / p.jobs : Number.NaN);
export const serverUs = (p: Phase): number => p.serverCpuUs / p.jobs;
export const clientUs = (p: Phase): number => p.clientCpuUs / p.jobs;
/** Round trips per job: server socket reads per job (a pipelined burst counts once). */
export const tripsPerJob = (p: Phase): number => p.reads / p.jobs;

export function payloads(n: number, pad: number): Payload[] {
  const text = 'x'.repeat(pad);
  return Array.from({ length: n }, (_, i) => ({ i, pad: text }));
}

/** Sum of `i` over a full processing phase: each job must have run exactly once. */
export const expectedChecksum = (n: number): number => (n * (n - 1)) / 2;

export interface Memory {
  /** Mean `MEMORY USAGE` of the sampled job keys plus every other key of the queue, per job. */
  readonly keysPerJob: number;
  /** `used_memory` after the fill minus before, per job. */
  readonly infoPerJob: number;
  /** The queue's non-job keys and their size in bytes. */
  readonly structure: readonly (readonly [string, number])[];
  readonly jobKeyMean: number;
}

function sample<T>(items: readonly T[], k: number): T[] {
  const copy = [...items];
  const take = Math.min(k, copy.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(Math.random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, take);
}

/** Memory per pending job: `sampleSize` job keys by `MEMORY USAGE`, plus every other key of the queue. */
export async function measureMemory(
  admin: Admin,
  jobKeys: readonly string[],
  pattern: string,
  isJobKey: (key: string) => boolean,
  before: number,
  sampleSize: number,
): Promise<Memory> {
  const after = await admin.usedMemory();
  const n = jobKeys.length;
  const sampled = sample(jobKeys, sampleSize);
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

/** The p-th percentile (0–100) of a sample, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Every size the two sides share. */
export interface BenchConfig {
  readonly queue: string;
  readonly concurrency: number;
  readonly batch: number;
  readonly batchInflight: number;
  readonly chunk: number;
  readonly sample: number;
  readonly timeoutMs: number;
  readonly leaseMs: number;
  readonly bullRemoveOnComplete: boolean;
}

/** An admission phase and the memory it left. */
export interface Fill {
  readonly enqueue: Phase;
  readonly memory: Memory;
}

/**
 * Enqueue → handler start with jobs sent at a steady `rate` per second (not waiting for each to
 * settle), `n` jobs: what a worker under a steady load picks up. `send(t0)` enqueues a job stamped
 * with its send time; the handler pushes onto `samples` the ms from its job's stamp to its start.
 * Answers the samples once all `n` are in.
 */
export async function pacedLatency(n: number, rate: number, send: (t0: number) => Promise<void>, samples: readonly number[], timeoutMs: number): Promise<number[]> {
  const every = 1000 / rate;
  const begin = performance.now();
  const sends: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    sends.push(send(performance.now()));
    const wait = begin + (i + 1) * every - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(sends);
  await waitUntil(() => samples.length >= n, timeoutMs, `every paced job started (${samples.length} of ${n})`);
  return [...samples];
}

/**
 * Latency from just before the enqueue call to the handler's first line, one job at a time into an
 * idle worker, ms. After each job the worker is let settle it and park again (`idle` resolves once
 * it counted the completion, then a short pause), so every sample starts from a parked worker.
 */
export async function sequentialLatency(
  n: number,
  send: (t0: number) => Promise<void>,
  started: () => Promise<number>,
  idle: (completed: number) => Promise<void>,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const seen = started();
    const t0 = performance.now();
    await send(t0);
    out.push((await seen) - t0);
    await idle(i + 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return out;
}
