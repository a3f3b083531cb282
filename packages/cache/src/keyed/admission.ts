import type { BrandedId } from '@echo/protocol';
import { newer } from '../coherence/message.js';
import type { Flight } from '../single-flight.js';
import { type EntryFrame, holdsUndefined } from './entry-frame.js';
import type { Lifetimes } from './fill-host.js';
import type { L1 } from '../core/l1.js';
import type { Entry } from '../core/rows.js';
import type { Copies, Held } from './read-mode.js';

/** What admission reads from its namespace. */
export interface AdmissionHost<T> {
  readonly l1: L1<Entry<T>>;
  readonly copies: Copies<T>;
  /** The namespace keeps an L1 at all. */
  readonly enabled: boolean;
  /** The namespace's grace, for frames read from L2 (their own grace is not in the frame). */
  readonly grace: number;
  readonly now: () => number;
  readonly stopped: () => boolean;
}

/**
 * Puts values into a namespace's L1 under its rules: newer wins, news that reached a running load
 * wins over what that load read, and nothing goes in after a stop or without an L1.
 */
export class Admission<T> {
  readonly #host: AdmissionHost<T>;

  constructor(host: AdmissionHost<T>) {
    this.#host = host;
  }

  /**
   * Puts a frame read from L2 into L1 and answers its value. An absent value (`undefined`, `null`)
   * gets no grace here: it may be a negative entry, which the server keeps for its own lifetime only.
   */
  frame(key: string, frame: EntryFrame, flight: Flight | undefined): T {
    const h = this.#host;
    const { value, encoded } = holdsUndefined(frame.version) ? { value: undefined as T, encoded: undefined } : h.copies.fromL2(frame.bytes);
    const expiresAt = frame.expiresAt === 0 ? Infinity : frame.expiresAt;
    const grace = value === undefined || value === null ? 0 : h.grace;
    this.#put(key, { value, encoded, version: frame.version, expiresAt, graceUntil: expiresAt + grace, admittedAt: h.now(), tags: [], used: false }, flight);
    return value;
  }

  /** Puts a value this process holds (a `set`, a factory's answer) into L1. */
  held(key: string, held: Held<T>, version: BrandedId, lifetimes: Lifetimes, tags: readonly string[], flight: Flight | null): void {
    const now = this.#host.now();
    const expiresAt = now + lifetimes.ttl;
    this.#put(key, { value: held.value, encoded: held.encoded, version, expiresAt, graceUntil: expiresAt + lifetimes.grace, admittedAt: now, tags, used: false }, flight ?? undefined);
  }

  #put(key: string, entry: Entry<T>, flight: Flight | undefined): void {
    const h = this.#host;
    if (h.stopped() || !h.enabled) return;
    // A write or delete announced while this load ran is newer than what it read.
    if (flight !== undefined && (flight.spoiled || (flight.newest !== null && newer(flight.newest, entry.version)))) return;
    const existing = h.l1.get(key);
    if (existing !== undefined && newer(existing.version, entry.version)) return;
    h.l1.set(key, entry, h.now());
  }
}
