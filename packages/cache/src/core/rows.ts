import type { BrandedId } from '@echo/protocol/cache';

/** A declared table's L1 row (cache.md §2). `expiresAt` is on the table's monotonic clock. */
export interface Row<T> {
  /** The decoded value. */
  readonly value: T;
  /** The version of the write that produced it; newer wins. */
  readonly version: BrandedId;
  /** Live until this instant of the table's monotonic clock. */
  readonly expiresAt: number;
}

/** A keyed namespace's L1 entry. Times are Unix ms, like the L2 frame's expiry. */
export interface Entry<T> {
  /** The value; unset (`undefined`) while `encoded` holds it not yet decoded (see read-mode.ts). */
  value: T;
  /**
   * The value's encoding, not yet decoded: under `frozen`, the first hit decodes and freezes it;
   * under `clone` with the JSON codec, the first hit decodes it into the private value each hit
   * copies (with another codec, each hit decodes it afresh). Cleared once decoded.
   */
  encoded: string | Buffer | undefined;
  readonly version: BrandedId;
  /** Fresh until this instant; `Infinity` for an entry without expiry. */
  readonly expiresAt: number;
  /** Servable as stale (grace) until this instant; equal to `expiresAt` without grace. */
  readonly graceUntil: number;
  /** When this process admitted it, so rows older than a lost coherence feed can be told apart. */
  readonly admittedAt: number;
  readonly tags: readonly string[];
  /** Set by a read; cleared when the eviction hand passes (the CLOCK second chance). */
  used: boolean;
}

/** A table row is dead once its expiry has passed. */
export function rowDead(row: Row<unknown>, now: number): boolean {
  return row.expiresAt < now;
}

/** A table row is never dead before its expiry. */
export function rowDeadFrom(row: Row<unknown>): number {
  return row.expiresAt;
}

/** A keyed entry is dead once its grace has passed: until then it may still be served stale. */
export function entryDead(entry: Entry<unknown>, now: number): boolean {
  return entry.graceUntil <= now;
}

/** A keyed entry is dead from the end of its grace. */
export function entryDeadFrom(entry: Entry<unknown>): number {
  return entry.graceUntil;
}
