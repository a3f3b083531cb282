import { hostname } from 'node:os';
import { execute, mintId, transitions as t } from '@echo/protocol';
import type { Queue } from '../queue.js';
import type { WorkerDescription } from '../reads/workers.js';

/** Beats a worker may miss before its registry entry lapses. */
const MISSED_BEATS = 3;
/** The shortest lapse window, so a very fast beat does not make a busy event loop look dead. */
const MIN_TTL_MS = 1000;

/** The lapse window of a worker that beats every `beatMs`: three missed beats, at least 1 s. */
export function presenceTtl(beatMs: number): number {
  return Math.max(MISSED_BEATS * beatMs, MIN_TTL_MS);
}

/** What a worker says about itself in the registry. */
export interface PresenceOptions {
  readonly name: string | undefined;
  readonly kind: 'worker' | 'batch';
  readonly concurrency: number;
  /** How often the worker beats; the entry lapses after {@link presenceTtl} of it. */
  readonly beatMs: number;
  /** Jobs held right now, read at each beat. */
  readonly active: () => number;
}

/**
 * A worker's entry in its queue's registry (`queue.getWorkers()`): written by each beat of the lock
 * plane, so it costs no timer and no round trip per job of its own, and removed on a clean close.
 */
export class Presence {
  readonly id = mintId('WRK');
  readonly #queue: Queue;
  readonly #options: PresenceOptions;
  readonly #ttlMs: number;
  readonly #startedAt = Date.now();
  readonly #host = hostname();
  #inflight: Promise<void> | undefined;
  #left = false;

  constructor(queue: Queue, options: PresenceOptions) {
    this.#queue = queue;
    this.#options = options;
    this.#ttlMs = presenceTtl(options.beatMs);
  }

  /** Writes the entry; a beat after {@link leave} writes nothing. Rejects with the server's error. */
  beat(): Promise<void> {
    if (this.#left) return Promise.resolve();
    const o = this.#options;
    const info: WorkerDescription = {
      name: o.name ?? `${this.#host}:${process.pid}`,
      kind: o.kind,
      host: this.#host,
      pid: process.pid,
      concurrency: o.concurrency,
      active: o.active(),
      startedAt: this.#startedAt,
      ttlMs: this.#ttlMs,
    };
    const beat = execute(this.#queue.connection, t.workerBeat({ queue: this.#queue.name, id: this.id, ttlMs: this.#ttlMs, info: JSON.stringify(info) })).then(() => undefined);
    this.#inflight = beat.catch(() => undefined);
    return beat;
  }

  /** Removes the entry at once, after any beat in flight, so no late beat brings it back. */
  async leave(): Promise<void> {
    this.#left = true;
    await this.#inflight;
    await execute(this.#queue.connection, t.workerLeave({ queue: this.#queue.name, id: this.id }));
  }
}
