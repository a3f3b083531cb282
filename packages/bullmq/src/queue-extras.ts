import { InvalidArgumentError, queueKeys } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from './envelope.js';
import { qualifiedNameOf } from './ids.js';

/** A worker of the queue, as BullMQ's `getWorkers` lists it (one entry per worker, named). */
export interface WorkerEntry {
  /** The worker's id. */
  readonly id: string;
  /** The worker's name. */
  readonly name: string;
  /** Where it runs, `host:pid`. */
  readonly addr: string;
  /** How many jobs it may run at once. */
  readonly concurrency: string;
  /** How many jobs it held at its last beat. */
  readonly active: string;
  /** When it started, epoch ms. */
  readonly started: string;
  /** BullMQ's client name of the worker, `<prefix>:<queue>:w:<name>` (the name last). */
  readonly rawname: string;
}

/** The live workers of the queue, from the registry every Echo worker keeps its entry in. */
export async function workerEntries(queue: EchoQueue<Envelope>): Promise<WorkerEntry[]> {
  const workers = await queue.getWorkers();
  return workers.map((w) => ({
    id: w.id,
    name: w.name,
    addr: `${w.host}:${String(w.pid)}`,
    concurrency: String(w.concurrency),
    active: String(w.active),
    started: String(w.startedAt),
    rawname: `${qualifiedNameOf(queue.name)}:w:${w.name}`,
  }));
}

/**
 * The global concurrency cap and rate limit the claims enforce, as the `gate_set` script keeps them
 * in the queue's meta hash (`concurrency`, `max`, `duration`); BullMQ reads the same three fields.
 */
export async function readGates(queue: EchoQueue<Envelope>): Promise<{ concurrency: number | null; rateLimit: { max: number; duration: number } | null }> {
  const raw = (await queue.connection.command('HMGET', queueKeys(queue.name).meta, 'concurrency', 'max', 'duration')) as (string | null)[];
  const [concurrency, max, duration] = raw;
  return {
    concurrency: concurrency ? Number(concurrency) : null,
    rateLimit: max && duration ? { max: Number(max), duration: Number(duration) } : null,
  };
}

/** BullMQ's bounds on a global concurrency: a whole number of at least 1. */
export function checkConcurrency(concurrency: number): void {
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new InvalidArgumentError('concurrency', 'must be an integer >= 1');
}

/** Slices a list BullMQ's way: `start`/`end` inclusive, `end` -1 the last, oldest first when `asc`. */
export function sliceLog(lines: readonly string[], start: number, end: number, asc: boolean): string[] {
  const ordered = asc ? [...lines] : [...lines].reverse();
  return ordered.slice(start, end < 0 ? ordered.length + end + 1 : end + 1);
}
