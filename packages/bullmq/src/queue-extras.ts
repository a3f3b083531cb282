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

/**
 * BullMQ's client name of a queue's `QueueEvents` connection: `<prefix>:<base64 of the name>:qe`.
 * The drop-in names its listener's connection so, and finds the listeners by it.
 */
export function queueEventsClientName(prefix: string, name: string): string {
  return `${prefix}:${Buffer.from(name).toString('base64')}:qe`;
}

/**
 * The subscribed connections named `clientName` on every master, as BullMQ's `getQueueEvents` lists them: each
 * `CLIENT LIST` field, with `name` the queue's name and `rawname` the connection's.
 */
export async function namedClients(queue: EchoQueue<Envelope>, clientName: string, name: string): Promise<Record<string, string>[]> {
  const lists = await Promise.all(queue.connection.masters().map((node) => node.command('CLIENT', 'LIST')));
  const clients: Record<string, string>[] = [];
  for (const list of lists) {
    for (const line of String(list).split(/\r?\n/)) {
      const fields: Record<string, string> = {};
      for (const pair of line.split(' ')) {
        const eq = pair.indexOf('=');
        if (eq > 0) fields[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      // A listener's subscribing connection: on a cluster its named connection also has a plain
      // link to every node, which is not a listener of its own.
      const subscribed = ['sub', 'psub', 'ssub'].some((k) => Number(fields[k] ?? 0) > 0);
      if (fields.name === clientName && subscribed) clients.push({ ...fields, name, rawname: clientName });
    }
  }
  return clients;
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
