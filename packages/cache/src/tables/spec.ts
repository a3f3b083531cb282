import { type BrandedId, InvalidArgumentError, assertCacheTable, isNamespace, resolveValueLimit } from '@echo/protocol/cache';
import { checkDeclare, entryCount } from '../base/option-checks.js';
import { type CacheCodec, jsonCodec } from '../base/codec.js';
import type { Versioned } from './versioned.js';

/** How a table's L1 learns that an entry changed elsewhere (cache.md §7.5). */
export type Coherence = 'none' | 'broadcast' | 'tracking';

/** The coherence lanes a table may declare. */
export const COHERENCE_LANES: readonly Coherence[] = ['none', 'broadcast', 'tracking'];

/**
 * Loads a missing entry from the source of truth. Answers the value (cached under the version
 * minted when the fill started) or a {@link Versioned} value; a rejection reaches every waiter of the
 * herd and nothing is cached.
 */
export type Loader<T, K extends string = string> = (id: BrandedId<K>) => T | Versioned<T> | Promise<T | Versioned<T>>;

/** A table's declaration (cache.md §1). Only `name`, `kind` and `loader` are required. */
export interface TableSpec<T, K extends string = string> {
  /** `^[A-Za-z0-9._-]{1,120}$`; the L2 hashtag and the coherence channel's too. */
  readonly name: string;
  /** Three letters `A`–`Z`: the namespace every id of this table must carry. */
  readonly kind: K;
  readonly loader: Loader<T, K>;
  /** L1 and L2 lifetime, a positive integer. Default 5000. */
  readonly ttlMs?: number;
  /** L1 expiry spread as a fraction of `ttlMs`, in `[0, 0.5]`. Default 0.1. */
  readonly jitter?: number;
  /** The most L1 rows; a full table passes reads through rather than evict. Default 100000. */
  readonly maxSize?: number;
  /** How often expired L1 rows are swept, a positive integer. Default 1000. */
  readonly sweepMs?: number;
  /** Default `none`. */
  readonly coherence?: Coherence;
  /** Broadcast lane ring size, a positive integer. Default 4096. */
  readonly ringCapacity?: number;
  /** Default: JSON as UTF-8, refusing values JSON cannot carry. */
  readonly codec?: CacheCodec<T>;
  /**
   * The most bytes one encoded value may take; a larger `put` or loader answer throws
   * `ValueTooLargeError` and writes nothing. `Infinity` for no cap. Default 1 MiB.
   */
  readonly maxValueBytes?: number;
}

/** The settings a directory lists for a declared table: its spec without loader and codec. */
export interface TableSettings {
  readonly name: string;
  readonly kind: string;
  readonly ttlMs: number;
  readonly jitter: number;
  readonly maxSize: number;
  readonly sweepMs: number;
  readonly coherence: Coherence;
  readonly ringCapacity: number;
}

/** A spec with every default applied and every field checked. */
export interface ResolvedSpec<T, K extends string = string> extends TableSettings {
  readonly kind: K;
  readonly loader: Loader<T, K>;
  readonly codec: CacheCodec<T>;
  readonly maxValueBytes: number;
}

/** The defaults of cache.md §1. */
export const SPEC_DEFAULTS = Object.freeze({
  ttlMs: 5000,
  jitter: 0.1,
  maxSize: 100_000,
  sweepMs: 1000,
  coherence: 'none',
  ringCapacity: 4096,
});

/**
 * Checks every field of a declaration and applies the defaults. Unknown fields are refused too: a
 * misspelt `ttl` silently falling back to the default would be found only in production.
 *
 * @throws InvalidNameError for a bad `name`; InvalidArgumentError for any other bad field.
 */
export function resolveSpec<T, K extends string>(spec: TableSpec<T, K>): ResolvedSpec<T, K> {
  // Checked as unknown: plain JavaScript callers are not held to the declared type.
  const raw: unknown = spec;
  if (typeof raw !== 'object' || raw === null) throw new InvalidArgumentError('spec', 'must be an object');
  checkDeclare(spec);
  assertCacheTable(spec.name);
  if (!isNamespace(spec.kind)) throw new InvalidArgumentError('kind', 'must be exactly three letters A-Z');
  if (typeof spec.loader !== 'function') throw new InvalidArgumentError('loader', 'must be a function');
  const coherence = spec.coherence ?? SPEC_DEFAULTS.coherence;
  if (!COHERENCE_LANES.includes(coherence)) throw new InvalidArgumentError('coherence', 'must be none, broadcast or tracking');
  const jitter = spec.jitter ?? SPEC_DEFAULTS.jitter;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 0.5)) throw new InvalidArgumentError('jitter', 'must be a number in [0, 0.5]');
  const codec = spec.codec ?? jsonCodec<T>();
  if (typeof codec.encode !== 'function' || typeof codec.decode !== 'function') {
    throw new InvalidArgumentError('codec', 'must have encode and decode functions');
  }
  return {
    name: spec.name,
    kind: spec.kind,
    loader: spec.loader,
    ttlMs: positive('ttlMs', spec.ttlMs, SPEC_DEFAULTS.ttlMs),
    jitter,
    maxSize: entryCount('maxSize', spec.maxSize, SPEC_DEFAULTS.maxSize),
    sweepMs: positive('sweepMs', spec.sweepMs, SPEC_DEFAULTS.sweepMs),
    coherence,
    ringCapacity: positive('ringCapacity', spec.ringCapacity, SPEC_DEFAULTS.ringCapacity),
    codec,
    maxValueBytes: resolveValueLimit('maxValueBytes', spec.maxValueBytes),
  };
}

/** The listable part of a resolved spec. */
export function settingsOf<T, K extends string>(spec: ResolvedSpec<T, K>): TableSettings {
  const { name, kind, ttlMs, jitter, maxSize, sweepMs, coherence, ringCapacity } = spec;
  return { name, kind, ttlMs, jitter, maxSize, sweepMs, coherence, ringCapacity };
}

function positive(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  // Safe integers only: PX and timers take integers, and a fraction or Infinity is a caller's slip.
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidArgumentError(field, 'must be a positive integer');
  }
  return value;
}
