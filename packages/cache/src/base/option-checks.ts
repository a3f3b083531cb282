import { InvalidArgumentError, type OptionCheck, strictOptions } from '@echo/protocol/cache';

/*
 * What each public entry point of the cache accepts, checked before anything is read or written:
 * a key the API does not know is an error, never ignored. Foreign names that bentocache users
 * bring (and a few spellings of our own options) carry a sentence naming what to write here.
 */

const MS = 'milliseconds as a number (3_600_000 for 1h)';

/**
 * The names every time-like option had before both faces took one vocabulary (the unit in the name,
 * as `leaseMs`, `sweepMs` and a table's `ttlMs` always had it): refused with the name to use.
 */
const RENAMED: Readonly<Record<string, readonly [string, string]>> = {
  ttl: ['ttlMs', `ttlMs here (${MS}); every time-like cache option names its unit`],
  grace: ['graceMs', `graceMs here (${MS} after ttlMs during which a stale value may be served)`],
  negativeTtl: ['negativeTtlMs', `negativeTtlMs here (${MS})`],
  soft: ['softMs', 'softMs here (milliseconds); every time-like cache option names its unit'],
  hard: ['hardMs', 'hardMs here (milliseconds); every time-like cache option names its unit'],
};

/** The renamed options' hints for an entry point that takes their new names. */
function renamedFor(known: readonly string[]): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(RENAMED).flatMap(([old, [now, hint]]) => (known.includes(now) ? [[old, hint]] : [])));
}

/** Hints shared by every keyed entry point: bentocache's per-call and cache-wide options. */
const BENTO: Readonly<Record<string, string>> = {
  skipBusNotify: 'every write here carries its own coherence entry in the same script, so there is no bus notification to skip',
  skipL2Write: 'every write here goes to L2 with its coherence entry; for a process-local value keep it in a Map, or declare a namespace with coherence: false',
  lockTimeout: 'the cross-process load lease is leaseMs (declared on the namespace); waiting callers give up at timeouts.hardMs',
  suppressL2Errors: "L2 errors fall back to L1, grace and the factory under the namespace's outage option (outage: true or { l2TimeoutMs, failures, openMs })",
  gracePeriod: `graceMs is the option here (${MS} after ttlMs during which a stale value may be served)`,
  graceBackoff: 'a failed refresh in grace is retried by the next read here; there is no backoff option',
  timeout: 'the soft factory timeout is timeouts: { softMs } here',
  hardTimeout: 'the hard factory timeout is timeouts: { hardMs } here',
  earlyExpiration: 'refresh-ahead is graceMs plus timeouts: { softMs: 0 } here: a stale value is served while one refresh runs',
  serialize: "values are encoded by the namespace's codec; an L1 hit's copy is chosen by read: 'frozen' | 'clone' | 'shared'",
  serializer: "values are encoded by the namespace's codec option (default JSON)",
  l2: 'a namespace always uses L2 (Redis); l1: false turns the in-process tier off',
  driver: 'the L2 is the Redis connection given to Cache.open ({ connection } or { connect })',
  stores: 'the L2 is the Redis connection given to Cache.open ({ connection } or { connect }); there are no named stores',
  prefix: "the namespace's name is its L2 prefix (ecc:{<name>}:); pass it as name",
  key: 'the key is the first argument here: get(key), getOrSet(key, factory, options)',
  factory: 'the factory is the second argument here: getOrSet(key, factory, options)',
  defaultValue: 'the fallback for an absent key is get(key, { default })',
  onFactoryError: "a failed factory emits 'factory-error' on the namespace (ns.on('factory-error', ...))",
  logger: 'the cache reports through events (ns.on(...)) and tracing hooks, not a logger option',
  namespace: 'open a namespace with cache.namespace({ name, ... }) and call its verbs',
};

/**
 * What bounds each time-like option: a lifetime the server keeps (`ttlMs`, `graceMs`,
 * `negativeTtlMs`) is a span; what the process waits on (timeouts, sweeps, the load lease, the
 * outage breaker) is a timer. `Infinity` (no expiry) is left to the option's own check.
 */
const TIME_BOUNDS = {
  ttlMs: 'span',
  graceMs: 'span',
  negativeTtlMs: 'span',
  leaseMs: 'timer',
  sweepMs: 'timer',
  softMs: 'timer',
  hardMs: 'timer',
  l2TimeoutMs: 'timer',
  openMs: 'timer',
} as const;

type CacheTimeBound = (typeof TIME_BOUNDS)[keyof typeof TIME_BOUNDS];

function boundsOf(known: readonly string[]): Readonly<Record<string, CacheTimeBound>> {
  return Object.fromEntries(Object.entries(TIME_BOUNDS).filter(([key]) => known.includes(key)));
}

function check(where: string, known: readonly string[], extra: Readonly<Record<string, string>> = {}): OptionCheck {
  return strictOptions(where, { known, hints: { ...BENTO, ...renamedFor(known), ...extra }, bounds: boundsOf(known) });
}

/** `Cache.open`. */
export const checkOpen = check('Cache.open options', ['connection', 'connect', 'now', 'random', 'wallNow'], {
  url: "a URL goes in connect: Cache.open({ connect: 'redis://...' })",
  redis: 'pass { connect: url | ConnectOptions } or { connection } (an open Connection)',
  ttl: 'ttlMs is declared per namespace here: cache.namespace({ name, ttlMs })',
  ttlMs: 'ttlMs is declared per namespace here: cache.namespace({ name, ttlMs })',
  grace: 'graceMs is declared per namespace here: cache.namespace({ name, graceMs })',
  graceMs: 'graceMs is declared per namespace here: cache.namespace({ name, graceMs })',
});

/** `cache.namespace`. */
export const checkNamespace = check(
  'namespace options',
  ['name', 'codec', 'ttlMs', 'graceMs', 'timeouts', 'leaseMs', 'maxSize', 'read', 'l1', 'coherence', 'logMaxLen', 'sweepMs', 'outage', 'maxValueBytes', 'negativeTtlMs', 'cacheIf'],
  { maxItems: 'the L1 bound is maxSize (entries)', maxEntrySize: 'the cap on one encoded value is maxValueBytes (bytes)' },
);

/** The namespace's and a call's `timeouts`. */
export const checkTimeoutShape = check('timeouts', ['softMs', 'hardMs'], {
  timeout: 'the soft timeout is softMs here',
  hardTimeout: 'the hard timeout is hardMs here',
});

/** The namespace's `outage`. */
export const checkOutageShape = check('outage', ['l2TimeoutMs', 'failures', 'openMs']);

/** `set` / `setForever`. */
export const checkWrite = check('set options', ['ttlMs', 'graceMs', 'tags'], {
  timeouts: 'timeouts apply to a factory: pass them to getOrSet',
  forceFresh: 'forceFresh applies to a factory: pass it to getOrSet',
});

/** `getOrSet` / `getOrSetEntry` / `getOrSetForever`. */
export const checkGetOrSet = check('getOrSet options', ['ttlMs', 'graceMs', 'tags', 'timeouts', 'forceFresh', 'negativeTtlMs', 'cacheIf'], {
  skip: 'a factory declines to cache its answer with ctx.skip(), or pass cacheIf: (value) => boolean',
  default: 'getOrSet answers what the factory loads; a default for an absent key is get(key, { default })',
});

const WRITE_SETS_TTL = {
  ttl: 'ttlMs is set by the write: set(key, value, { ttlMs }) or getOrSet(key, factory, { ttlMs })',
  ttlMs: 'ttlMs is set by the write: set(key, value, { ttlMs }) or getOrSet(key, factory, { ttlMs })',
};

/** `get`: only `default`. */
export const checkGetValue = check('get options', ['default'], WRITE_SETS_TTL);

/** `getEntry`, `has`: no options, so any key is refused. */
export const checkGet = check('get options', [], { ...WRITE_SETS_TTL, default: 'default applies to get(key, { default }); getEntry and has answer what is stored' });

/** `pull`: no options. */
export const checkPull = check('pull options', [], { default: 'pull answers undefined for an absent key; write (await ns.pull(key)) ?? fallback' });

/** `expire`: no options. */
export const checkExpire = check('expire options', [], {
  ...WRITE_SETS_TTL,
  grace: "expire keeps the stale entry for the namespace's graceMs (cache.namespace({ name, graceMs }))",
  graceMs: "expire keeps the stale entry for the namespace's graceMs (cache.namespace({ name, graceMs }))",
});

/** `delete`, `deleteMany`: no options. */
export const checkDelete = check('delete options', [], WRITE_SETS_TTL);

/** `deleteByTag`: no options. */
export const checkDeleteByTag = check('deleteByTag options', [], { tags: 'deleteByTag takes one tag: deleteByTag(tag); call it once per tag' });

/** `cache.declare` (a table spec). */
const DECLARE_KNOWN = ['name', 'kind', 'loader', 'ttlMs', 'jitter', 'maxSize', 'sweepMs', 'coherence', 'ringCapacity', 'codec', 'maxValueBytes'];
export const checkDeclare = strictOptions('declare spec', {
  known: DECLARE_KNOWN,
  bounds: boundsOf(DECLARE_KNOWN),
  hints: {
    ttl: 'a table takes ttlMs (milliseconds)',
    factory: 'a table loads through loader: (id) => value',
    grace: 'tables have no grace; a keyed namespace has (cache.namespace({ name, graceMs }))',
    graceMs: 'tables have no grace; a keyed namespace has (cache.namespace({ name, graceMs }))',
    tags: 'tables have no tags; a keyed namespace has (set(key, value, { tags }))',
  },
});

/**
 * `maxSize` (a namespace's or a table's): a count of L1 entries. Its refusal says so, since a size
 * such as `'10mb'` reads naturally there and the unit of the other numbers (milliseconds) is wrong.
 */
export function entryCount(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  const bytes = typeof value === 'string' ? `, not a size (${JSON.stringify(value)}); the cap on one value's bytes is maxValueBytes` : '';
  throw new InvalidArgumentError(field, `is a count of entries, a positive integer such as 10_000${bytes}`);
}
