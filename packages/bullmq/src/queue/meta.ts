import { InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import { readGates } from '../queue-extras.js';
import { LIB_NAME, version } from '../version.js';

/** BullMQ's default bound on a queue's events stream, recorded as `maxLenEvents`. */
export const DEFAULT_MAX_LEN_EVENTS = 10_000;

/** A queue's global settings, as BullMQ's `getMeta` answers them. */
export interface QueueMeta {
  /** The global concurrency cap (`setGlobalConcurrency`), when one is set. */
  concurrency?: number;
  /** Jobs per `duration` of the global rate limit (`setGlobalRateLimit`), when one is set. */
  max?: number;
  /** The global rate limit's window, ms, when one is set. */
  duration?: number;
  /** The events bound recorded by the last Queue that opened with meta updates (default 10000). */
  maxLenEvents?: number;
  /** Whether the queue is paused. */
  paused?: boolean;
  /** `<library>:<version>` of the last Queue that opened with meta updates. */
  version?: string;
}

/** `streams` of BullMQ's Queue options: the events stream's bound. */
export interface StreamsOptions {
  /** The events stream. */
  readonly events?: { readonly maxLen?: number };
}

const checkStreams = strictOptions('Queue options.streams', { known: ['events'] });
const checkEventsStream = strictOptions('Queue options.streams.events', { known: ['maxLen'] });

/** Checks BullMQ's `streams` option: `{ events: { maxLen } }`, a whole number >= 0. */
export function checkStreamsOptions(streams: StreamsOptions): void {
  checkStreams(streams);
  if (streams.events === undefined) return;
  checkEventsStream(streams.events);
  const maxLen = streams.events.maxLen;
  if (maxLen !== undefined && (!Number.isSafeInteger(maxLen) || maxLen < 0)) throw new InvalidArgumentError('streams.events.maxLen', 'must be an integer >= 0');
}

/**
 * The drop-in's own meta hash of a queue: what BullMQ's Queue writes into its meta at open that
 * Echo's queue has no field for (the library version, the events bound). Outside Echo's keyspace,
 * as the id counter is; the hash tag keeps it in the queue's slot on a cluster.
 */
export function dropInMetaKey(echoName: string): string {
  return `bullmq-echo:{${echoName}}:meta`;
}

/**
 * Records the library version and events bound, as BullMQ's Queue does when it opens. A `maxLen`
 * given bounds the queue's durable journal, Echo's stream of its events (0: none kept).
 */
export async function writeMeta(queue: EchoQueue<Envelope>, streams: StreamsOptions | undefined): Promise<void> {
  const given = streams?.events?.maxLen;
  if (given !== undefined) await queue.setEvents({ journal: given === 0 ? null : given });
  await queue.connection.command('HSET', dropInMetaKey(queue.name), 'version', `${LIB_NAME}:${version}`, 'opts.maxLenEvents', String(given ?? DEFAULT_MAX_LEN_EVENTS));
}

/** The recorded version, or null when no Queue recorded one (all opened with `skipMetasUpdate`). */
export async function readVersion(queue: EchoQueue<Envelope>): Promise<string | null> {
  const value = await queue.connection.command('HGET', dropInMetaKey(queue.name), 'version');
  return typeof value === 'string' ? value : null;
}

/** BullMQ's `getMeta`: the gates from Echo's meta, the pause, and the drop-in's recorded fields. */
export async function readMeta(queue: EchoQueue<Envelope>): Promise<QueueMeta> {
  const [gates, paused, raw] = await Promise.all([
    readGates(queue),
    queue.isPaused(),
    queue.connection.command('HMGET', dropInMetaKey(queue.name), 'version', 'opts.maxLenEvents') as Promise<(string | null)[]>,
  ]);
  const [recorded, maxLenEvents] = raw;
  const meta: QueueMeta = {};
  if (recorded) meta.version = recorded;
  if (gates.concurrency !== null) meta.concurrency = gates.concurrency;
  if (maxLenEvents) meta.maxLenEvents = Number(maxLenEvents);
  if (gates.rateLimit !== null) {
    meta.max = gates.rateLimit.max;
    meta.duration = gates.rateLimit.duration;
  }
  meta.paused = paused;
  return meta;
}

/** Deletes the drop-in's meta hash (obliterate leaves nothing of the queue). */
export async function deleteMeta(queue: EchoQueue<Envelope>): Promise<void> {
  await queue.connection.command('DEL', dropInMetaKey(queue.name));
}
