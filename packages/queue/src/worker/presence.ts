import { hostname } from 'node:os';
import { mintId } from '@echo/protocol/queue';
import type { Maintenance } from '../lease/maintenance.js';
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
  /** The worker's concurrency, read at each beat (it may change while the worker runs). */
  readonly concurrency: () => number;
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
  readonly #maintenance: Maintenance;
  readonly #options: PresenceOptions;
  readonly #ttlMs: number;
  readonly #startedAt = Date.now();
  readonly #host = hostname();
  #inflight: Promise<void> | undefined;
  #left = false;

  constructor(maintenance: Maintenance, options: PresenceOptions) {
    this.#maintenance = maintenance;
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
      concurrency: o.concurrency(),
      active: o.active(),
      startedAt: this.#startedAt,
      ttlMs: this.#ttlMs,
    };
    const beat = this.#maintenance.beat(this.id, this.#ttlMs, JSON.stringify(info));
    this.#inflight = beat.catch(() => undefined);
    return beat;
  }

  /** Removes the entry at once, after any beat in flight, so no late beat brings it back. */
  async leave(): Promise<void> {
    this.#left = true;
    await this.#inflight;
    await this.#maintenance.leave(this.id);
  }
}
