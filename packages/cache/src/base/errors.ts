import { EchoError } from '@echo/protocol/cache';

/**
 * A call named a table that this {@link Cache} never declared, or one that has stopped. Tables are
 * declared, not discovered (cache.md §1): a typo must fail loudly rather than create an empty cache.
 */
export class NoSuchCacheError extends EchoError {
  /** The table name that was asked for. */
  readonly table: string;

  constructor(table: string) {
    super('no_such_cache', `no cache table ${JSON.stringify(table)} is declared`);
    this.table = table;
  }
}

/**
 * A table of this name is already declared in this directory. Two specs for one name would leave
 * it unclear which TTL, kind or loader a read obeys, so the second declaration is refused.
 */
export class CacheExistsError extends EchoError {
  /** The name that was declared twice. */
  readonly table: string;

  constructor(table: string) {
    super('cache_exists', `cache table ${JSON.stringify(table)} is already declared`);
    this.table = table;
  }
}

/**
 * An L2 value is shorter than the 14-byte version that every frame starts with (cache.md §2).
 * Something other than a cache wrote the key; the read fails rather than guess at a value.
 */
export class CorruptL2FrameError extends EchoError {
  /** The L2 key that held the frame. */
  readonly key: string;
  /** The frame's length in bytes. */
  readonly length: number;

  constructor(key: string, length: number) {
    super('corrupt_l2_frame', `L2 frame at ${key} is ${length} bytes, shorter than its 14-byte version`);
    this.key = key;
    this.length = length;
  }
}

/**
 * A fill failed with something that is not an `Error` (a thrown string, a rejection with
 * `undefined`): the TS reading of a crashed fill task (cache.md §4). Every waiter of the herd gets
 * this one error; an ordinary `Error` from the loader or the server reaches them unchanged.
 */
export class FlightCrashedError extends EchoError {
  /** What was thrown. */
  readonly reason: unknown;

  constructor(reason: unknown) {
    super('flight_crashed', `cache fill crashed: ${describe(reason)}`, { cause: reason });
    this.reason = reason;
  }
}

/**
 * Server-assisted tracking could not be armed when the table started (cache.md §7.5): the server
 * refused `CLIENT TRACKING` (too old, ACL, cluster). A configuration error, so the declaration fails.
 */
export class TrackingArmError extends EchoError {
  /** The table whose tracking lane failed. */
  readonly table: string;

  constructor(table: string, cause: unknown) {
    super('tracking_arm', `cannot arm tracking for cache table ${JSON.stringify(table)}: ${describe(cause)}`, { cause });
    this.table = table;
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    if (typeof value === 'string') return value;
    // JSON.stringify answers undefined, despite its declared type, for undefined and functions.
    const text: unknown = JSON.stringify(value);
    return typeof text === 'string' ? text : String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * A factory ran past its hard timeout, or a caller waited past it for another process's load. The
 * factory itself goes on in the background and fills the entry when it answers.
 */
export class FactoryTimeoutError extends EchoError {
  readonly key: string;
  readonly timeoutMs: number;

  constructor(key: string, timeoutMs: number) {
    super('factory_timeout', `cache factory for ${JSON.stringify(key)} took longer than ${timeoutMs} ms`);
    this.key = key;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A write could not reach L2 (outage mode: it failed or the breaker is open). The local L1 has
 * already been changed: a delete is gone locally, a set is held locally.
 */
export class L2UnavailableError extends EchoError {
  readonly op: string;

  constructor(op: string, cause: unknown) {
    super('l2_unavailable', `cache ${op} could not reach L2: ${describe(cause)}`, { cause });
    this.op = op;
  }
}

/**
 * A namespace already open in this directory was asked for again with different options. The same
 * options answer the open handle; different ones would leave it unclear which TTL or codec a read
 * obeys, so the second request is refused, naming the first option that differs.
 */
export class NamespaceOptionsError extends EchoError {
  /** The namespace asked for twice. */
  readonly namespace: string;
  /** The option that differs, e.g. `ttlMs`, `codec` or `timeouts.softMs`. */
  readonly option: string;

  constructor(namespace: string, option: string) {
    super(
      'namespace_options',
      `namespace ${JSON.stringify(namespace)} is already open with a different ${option}; ask for it with the same options to share it, or use another name`,
    );
    this.namespace = namespace;
    this.option = option;
  }
}

