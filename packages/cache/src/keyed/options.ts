import { InvalidArgumentError, assertCacheTable, assertCacheTag, resolveValueLimit } from '@echo/protocol/cache';
import { checkGetOrSet, checkNamespace, checkOutageShape, checkTimeoutShape, entryCount } from '../base/option-checks.js';
import { type CacheCodec, jsonCodec } from '../base/codec.js';
import { LOG_MIN_LEN } from '../coherence/log.js';
import type { OutageOptions } from '../l2/breaker.js';
import { READ_MODES, type ReadMode } from './read-mode.js';

/** Soft and hard limits on a factory's run (bentocache's model). */
export interface Timeouts {
  /**
   * With a stale value in grace: after this many ms the stale value is answered and the factory
   * goes on in the background to refresh the entry. `0` answers the stale value at once
   * (stale-while-revalidate). Without a stale value it does nothing. Default 0.
   */
  readonly softMs?: number;
  /** After this many ms the call fails with `FactoryTimeoutError`; the factory goes on in the background. */
  readonly hardMs?: number;
}

/** Per-write options. */
export interface WriteOptions {
  /** Fresh lifetime in ms; default the namespace's `ttlMs`. */
  readonly ttlMs?: number;
  /** How long after `ttlMs` a stale value may still be served (grace), in ms; default the namespace's. */
  readonly graceMs?: number;
  /** Tags for {@link Namespace.deleteByTag}. */
  readonly tags?: readonly string[];
}

/**
 * The options of a verb that takes none yet (`get`, `has`, `delete`, `deleteByTag`): any key is
 * refused with `UnknownOptionError`, with a hint for bentocache's names.
 */
export type NoOptions = Readonly<Record<string, never>>;

/**
 * A fallback `get` computes only when it needs one (bentocache's `defaultValue` given as a
 * function): called on a miss, never on a hit.
 */
export type DefaultFactory<T> = () => T | Promise<T>;

/** Per-call options of `get`. */
export interface GetOptions<T> {
  /**
   * Answered when the key is absent: missing, or holding a cached absence (`undefined` or `null`).
   * A function is called then, lazily (never on a hit), and its answer (awaited) is returned; a
   * function is always called, so a default cannot itself be a function value. Nothing is written:
   * to cache what a miss loads, use `getOrSet`.
   */
  readonly default?: T | DefaultFactory<T>;
}

/** What decides, per factory answer, whether it is cached (see {@link GetOrSetOptions.cacheIf}). */
export type CacheIf<T> = (value: T) => boolean;

/** Per-call options of `getOrSet`. */
export interface GetOrSetOptions<T = unknown> extends WriteOptions {
  readonly timeouts?: Timeouts;
  /** Skip both tiers and run the factory (its answer replaces the entry everywhere). */
  readonly forceFresh?: boolean;
  /**
   * Fresh lifetime in ms of an absent answer (`undefined` or `null`), with no grace: a missing row
   * is then one factory call per this long, not one per read. Default the namespace's; without one
   * an absent answer lives as long as any other. `ctx.setTtl` still wins.
   */
  readonly negativeTtlMs?: number;
  /**
   * Asked with each factory answer; `false` hands the answer to its callers uncached (as
   * `ctx.skip()` does). Replaces the namespace's `cacheIf` for this call.
   */
  readonly cacheIf?: CacheIf<T>;
}

/** What a factory may read and decide about the entry it loads. */
export interface FactoryContext<T> {
  readonly key: string;
  /** The stale value in grace, when there is one. */
  readonly stale: T | undefined;
  /** Sets this entry's fresh lifetime from what was loaded (adaptive caching); `Infinity` keeps it forever. */
  setTtl(ms: number): void;
  /** Replaces the entry's tags. */
  setTags(tags: readonly string[]): void;
  /**
   * Declines to cache this answer: the value the factory returns goes to this call and to the calls
   * that joined it in this process, nothing is written, and the key's lease is given back at once
   * (callers waiting in other processes then load for themselves instead of waiting it out).
   */
  skip(): void;
}

/** Loads a missing entry. */
export type Factory<T> = (ctx: FactoryContext<T>) => T | Promise<T>;

/** A keyed namespace's declaration. Only `name` is required. */
export interface NamespaceOptions<T> {
  /** `^[A-Za-z0-9._-]{1,120}$`; the L2 hashtag. */
  readonly name: string;
  /** Default {@link jsonCodec}; every process sharing the namespace must share it. */
  readonly codec?: CacheCodec<T>;
  /** Fresh lifetime in ms. Default 30000. */
  readonly ttlMs?: number;
  /** Grace after `ttlMs`, in ms; 0 turns grace off. Default 0. */
  readonly graceMs?: number;
  readonly timeouts?: Timeouts;
  /** The cross-process load lease's lifetime, ms: a crashed loader blocks others at most this long. Default 5000. */
  readonly leaseMs?: number;
  /** The most L1 entries (a count, not bytes: `maxValueBytes` caps one value); a full L1 evicts the least recently used. Default 10000. */
  readonly maxSize?: number;
  /** What an L1 hit hands back. Default `frozen`. */
  readonly read?: ReadMode;
  /** Keep an L1 at all; `false` makes every read go to L2 (an L2-only cache). Default true. */
  readonly l1?: boolean;
  /** Read the namespace's coherence log, so writes elsewhere reach this L1. Default true. */
  readonly coherence?: boolean;
  /** The coherence log's approximate length bound, at least 512 (one read of the log). Default 10000. */
  readonly logMaxLen?: number;
  /** How often L1 drops entries past their grace, ms. Default 1000. */
  readonly sweepMs?: number;
  /** Opt into the outage mode: L2 errors and stalls fall back to L1, grace and the factory. Default off. */
  readonly outage?: boolean | OutageOptions;
  /**
   * The most bytes one encoded value may take; a larger `set` or factory answer throws
   * `ValueTooLargeError` and writes nothing. `Infinity` for no cap. Default 1 MiB.
   */
  readonly maxValueBytes?: number;
  /**
   * Fresh lifetime in ms of an absent factory answer (`undefined` or `null`), with no grace
   * (negative caching). Default none: an absent answer lives `ttlMs` like any other.
   */
  readonly negativeTtlMs?: number;
  /** Asked with each factory answer; `false` leaves it uncached (see `FactoryContext.skip`). Default none. */
  readonly cacheIf?: CacheIf<T>;
}

/** A namespace declaration with defaults applied. */
export interface ResolvedNamespace<T> {
  readonly name: string;
  readonly codec: CacheCodec<T>;
  readonly ttlMs: number;
  readonly graceMs: number;
  readonly timeouts: Timeouts;
  readonly leaseMs: number;
  readonly maxSize: number;
  readonly read: ReadMode;
  readonly l1: boolean;
  readonly coherence: boolean;
  readonly logMaxLen: number;
  readonly sweepMs: number;
  readonly outage: Required<OutageOptions> | null;
  readonly maxValueBytes: number;
  readonly negativeTtlMs: number | undefined;
  // A method, so a namespace handle held as Namespace<never> (the directory's) stays assignable.
  cacheIf?(value: T): boolean;
}

/**
 * Checks a namespace declaration and applies its defaults; unknown fields are refused.
 *
 * @throws InvalidNameError for a bad name; UnknownOptionError for a key that is not an option;
 *   InvalidArgumentError for any other bad field.
 */
export function resolveNamespace<T>(options: NamespaceOptions<T>): ResolvedNamespace<T> {
  const raw: unknown = options;
  if (typeof raw === 'string') throw new InvalidArgumentError('namespace options', `must be an object: cache.namespace({ name: ${JSON.stringify(raw)} })`);
  if (typeof raw !== 'object' || raw === null) throw new InvalidArgumentError('namespace options', 'must be an object');
  checkNamespace(options);
  assertCacheTable(options.name);
  const codec = options.codec ?? jsonCodec<T>();
  if (typeof codec.encode !== 'function' || typeof codec.decode !== 'function') throw new InvalidArgumentError('codec', 'must have encode and decode functions');
  const read = options.read ?? 'frozen';
  if (!READ_MODES.includes(read)) throw new InvalidArgumentError('read', 'must be frozen, clone or shared');
  const outage = options.outage ?? false;
  let resolvedOutage: Required<OutageOptions> | null = null;
  if (outage !== false) {
    if (outage !== true && (typeof outage !== 'object' || (outage as unknown) === null)) throw new InvalidArgumentError('outage', 'must be a boolean or an object');
    const o: OutageOptions = outage === true ? {} : outage;
    checkOutageShape(o);
    resolvedOutage = {
      l2TimeoutMs: positive('outage.l2TimeoutMs', o.l2TimeoutMs, 250),
      failures: positive('outage.failures', o.failures, 3),
      openMs: positive('outage.openMs', o.openMs, 2000),
    };
  }
  checkCacheIf(options.cacheIf);
  return {
    name: options.name,
    codec,
    ttlMs: lifetime('ttlMs', options.ttlMs, 30_000),
    graceMs: nonNegative('graceMs', options.graceMs, 0),
    timeouts: { softMs: 0, ...checkTimeouts(options.timeouts) },
    leaseMs: positive('leaseMs', options.leaseMs, 5000),
    maxSize: entryCount('maxSize', options.maxSize, 10_000),
    read,
    l1: bool('l1', options.l1, true),
    coherence: bool('coherence', options.coherence, true),
    logMaxLen: logBound(options.logMaxLen),
    sweepMs: positive('sweepMs', options.sweepMs, 1000),
    outage: resolvedOutage,
    maxValueBytes: resolveValueLimit('maxValueBytes', options.maxValueBytes),
    negativeTtlMs: options.negativeTtlMs === undefined ? undefined : positive('negativeTtlMs', options.negativeTtlMs, 1),
    ...(options.cacheIf !== undefined ? { cacheIf: options.cacheIf } : {}),
  };
}

/** Checks per-call timeouts. */
export function checkTimeouts(timeouts: Timeouts | undefined): Timeouts {
  if (timeouts === undefined) return {};
  if (typeof timeouts !== 'object' || (timeouts as unknown) === null) throw new InvalidArgumentError('timeouts', 'must be an object: { softMs, hardMs }');
  checkTimeoutShape(timeouts);
  return {
    ...(timeouts.softMs !== undefined ? { softMs: nonNegative('timeouts.softMs', timeouts.softMs, 0) } : {}),
    ...(timeouts.hardMs !== undefined ? { hardMs: positive('timeouts.hardMs', timeouts.hardMs, 1) } : {}),
  };
}

/** Checks a `getOrSet` call's options (strict names, then each value) before anything is read. */
export function checkGetOrSetCall<T>(options: GetOrSetOptions<T>): void {
  checkGetOrSet(options);
  if (options.ttlMs !== undefined) lifetime('ttlMs', options.ttlMs, 0);
  if (options.graceMs !== undefined) nonNegative('graceMs', options.graceMs, 0);
  if (options.negativeTtlMs !== undefined) positive('negativeTtlMs', options.negativeTtlMs, 1);
  checkCacheIf(options.cacheIf);
}

/** Checks a `cacheIf` predicate. */
export function checkCacheIf(cacheIf: unknown): void {
  if (cacheIf !== undefined && typeof cacheIf !== 'function') throw new InvalidArgumentError('cacheIf', 'must be a function (value) => boolean');
}

/** Checks a tag list; answers a frozen copy. */
export function checkTags(tags: readonly string[] | undefined): readonly string[] {
  if (tags === undefined) return [];
  if (!Array.isArray(tags)) throw new InvalidArgumentError('tags', 'must be an array of strings');
  for (const tag of tags) assertCacheTag(tag);
  return Object.freeze([...new Set<string>(tags as readonly string[])]);
}

/** A positive integer ms lifetime, or `Infinity` for no expiry. */
export function lifetime(field: string, value: unknown, fallback: number): number {
  if (value === Infinity) return Infinity;
  return positive(field, value, fallback);
}

/** A duration string such as bentocache's `'1h'` is refused with the unit we take. */
function notDuration(field: string, value: unknown): void {
  if (typeof value === 'string') throw new InvalidArgumentError(field, `is milliseconds as a number here, not a duration string (${JSON.stringify(value)}); e.g. 3_600_000 for '1h'`);
}

/**
 * The coherence log's bound: at least {@link LOG_MIN_LEN}, so every process's trim leaves a full
 * batch of the log reader, which then checks for trims only after a full batch (coherence/log.ts).
 */
function logBound(value: unknown): number {
  const bound = positive('logMaxLen', value, 10_000);
  if (bound < LOG_MIN_LEN) throw new InvalidArgumentError('logMaxLen', `must be at least ${String(LOG_MIN_LEN)} (one read of the coherence log), got ${String(bound)}`);
  return bound;
}

export function positive(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  notDuration(field, value);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new InvalidArgumentError(field, 'must be a positive integer');
  return value;
}

export function nonNegative(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  notDuration(field, value);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new InvalidArgumentError(field, 'must be a non-negative integer');
  return value;
}

function bool(field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new InvalidArgumentError(field, 'must be a boolean');
  return value;
}
