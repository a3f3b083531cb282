import { InvalidArgumentError } from '../errors/validation.js';
import type { BrandedId } from '../ids/branded.js';
import { cacheEntryKey, cacheKey, cacheLeaseKey, cacheLogKey, cacheTagKey } from '../keys/cache-keys.js';
import { FIXED_FIELD } from '../keys/format-key.js';
import { queueKeys, type QueueKeys } from '../keys/queue-keys.js';
import { isJobSub, isStreamPart } from '../keys/registry.js';

/**
 * The names a header's key shapes may use. `{q}`, `{qp}` and `{qc}` are queues (the queue itself,
 * a flow parent's, a flow child's); `{t}` is a cache table; the `<…>` names are ids and names.
 */
export interface KeyScope {
  /** The queue the transition runs on: `{q}`. */
  readonly q?: string;
  /** A flow parent's queue: `{qp}`. */
  readonly qp?: string;
  /** A flow child's queue: `{qc}`. */
  readonly qc?: string;
  /** A cache table: `{t}`. */
  readonly t?: string;
  /** A job or cache row id: `<id>`. */
  readonly id?: string;
  /** A flow parent's id: `<pid>`. */
  readonly pid?: string;
  /** A flow child's id: `<cid>`. */
  readonly cid?: string;
  /** A lane's group id: `<g>`. */
  readonly g?: string;
  /** The lane a job moves to: `<dst>`. */
  readonly dst?: string;
  /** An idempotency key: `<did>`. */
  readonly did?: string;
  /** A repeat name: `<name>`. */
  readonly name?: string;
  /** A stream name: `<stream>`. */
  readonly stream?: string;
  /** A keyed cache entry's key: `<key>` in `ecc:{t}:k:<key>` and `ecc:{t}:l:<key>`. */
  readonly key?: string;
  /** A keyed cache tag: `<tag>` in `ecc:{t}:tag:<tag>`. */
  readonly tag?: string;
}

/** Builds one declared key from a scope, through the keyspace builders (which validate). */
export type KeyResolver = (scope: KeyScope) => string;

type QueueVar = 'q' | 'qp' | 'qc';
type IdVar = Exclude<keyof KeyScope, QueueVar | 't'>;

/**
 * Every suffix a header may name without a placeholder and the {@link QueueKeys} field that holds
 * it: the registry's fixed types, plus the metrics keys, the events channel and the two roots.
 */
const FIXED: Readonly<Record<string, keyof QueueKeys>> = {
  ...FIXED_FIELD,
  events: 'events',
  'metrics:completed': 'metricsCompleted',
  'metrics:failed': 'metricsFailed',
  'metrics:completed:data': 'metricsCompletedData',
  'metrics:failed:data': 'metricsFailedData',
  'job:': 'jobRoot',
  'g:': 'laneRoot',
  'de:': 'dedupRoot',
};

const ID_VARS: ReadonlySet<string> = new Set<IdVar>(['id', 'pid', 'cid', 'g', 'dst', 'did', 'name', 'stream', 'key', 'tag']);

/** The queue-keys object of a name, kept for the hot path: building one costs ~25 string joins. */
const keysCache = new Map<string, QueueKeys>();
const KEYS_CACHE_MAX = 1024;

/** {@link queueKeys}, memoised over the most recent queue names. */
export function keysOf(queue: string): QueueKeys {
  let keys = keysCache.get(queue);
  if (keys === undefined) {
    keys = queueKeys(queue);
    if (keysCache.size >= KEYS_CACHE_MAX) keysCache.clear();
    keysCache.set(queue, keys);
  }
  return keys;
}

function need(scope: KeyScope, name: keyof KeyScope, shape: string): string {
  const value = scope[name];
  if (value === undefined) throw new InvalidArgumentError(name, `is needed to build ${shape}`);
  return value;
}

function idVar(name: string, shape: string): IdVar {
  if (!ID_VARS.has(name)) throw new InvalidArgumentError('script header', `unknown placeholder <${name}> in ${shape}`);
  return name as IdVar;
}

function queueResolver(queueVar: QueueVar, suffix: string, shape: string): KeyResolver {
  const keys = (scope: KeyScope): QueueKeys => keysOf(need(scope, queueVar, shape));
  const fixed = FIXED[suffix];
  if (fixed !== undefined) return (scope) => keys(scope)[fixed] as string;
  let m = /^job:<(\w+)>$/.exec(suffix);
  if (m?.[1]) {
    const v = idVar(m[1], shape);
    return (scope) => keys(scope).job(need(scope, v, shape) as BrandedId);
  }
  m = /^job:<(\w+)>:(\w+)$/.exec(suffix);
  if (m?.[1] && m[2] && isJobSub(m[2])) {
    const v = idVar(m[1], shape);
    const sub = m[2];
    return (scope) => keys(scope).jobSub(need(scope, v, shape) as BrandedId, sub);
  }
  m = /^g:<(\w+)>:pending$/.exec(suffix);
  if (m?.[1]) {
    const v = idVar(m[1], shape);
    return (scope) => keys(scope).lane(need(scope, v, shape) as BrandedId);
  }
  m = /^de:<(\w+)>$/.exec(suffix);
  if (m?.[1]) {
    const v = idVar(m[1], shape);
    return (scope) => keys(scope).dedup(need(scope, v, shape));
  }
  m = /^repeat:<(\w+)>$/.exec(suffix);
  if (m?.[1]) {
    const v = idVar(m[1], shape);
    return (scope) => keys(scope).repeatRecord(need(scope, v, shape));
  }
  m = /^stream:<(\w+)>:(.+)$/.exec(suffix);
  if (m?.[1] && m[2] && isStreamPart(m[2])) {
    const v = idVar(m[1], shape);
    const part = m[2];
    return (scope) => keys(scope).streamPart(need(scope, v, shape), part);
  }
  m = /^stream:<(\w+)>(:archived|:dead)?$/.exec(suffix);
  if (m?.[1]) {
    const v = idVar(m[1], shape);
    const part = m[2];
    if (part === ':archived') return (scope) => keys(scope).archived(need(scope, v, shape));
    if (part === ':dead') return (scope) => keys(scope).deadLetters(need(scope, v, shape));
    return (scope) => keys(scope).stream(need(scope, v, shape));
  }
  throw new InvalidArgumentError('script header', `key shape ${shape} is not in the keyspace registry`);
}

/**
 * Compiles a header key shape (`emq:{q}:job:<id>`, `emq:{qp}:job:<pid>:dependencies`,
 * `ecc:{t}:<id>`, …) into the keyspace builder call that makes it. A shape the registry does not
 * know is refused here, when the script is first bound, never sent.
 */
export function compileKeyShape(shape: string): KeyResolver {
  const queue = /^emq:\{(q|qp|qc)\}:(.+)$/.exec(shape);
  if (queue?.[1] && queue[2]) return queueResolver(queue[1] as QueueVar, queue[2], shape);
  if (shape === 'ecc:{t}:log') return (scope) => cacheLogKey(need(scope, 't', shape));
  const keyed = /^ecc:\{t\}:(k|l|tag):<(\w+)>$/.exec(shape);
  if (keyed?.[1] && keyed[2]) {
    const v = idVar(keyed[2], shape);
    const build = keyed[1] === 'k' ? cacheEntryKey : keyed[1] === 'l' ? cacheLeaseKey : cacheTagKey;
    return (scope) => build(need(scope, 't', shape), need(scope, v, shape));
  }
  const cache = /^ecc:\{t\}:<(\w+)>$/.exec(shape);
  if (cache?.[1]) {
    const v = idVar(cache[1], shape);
    return (scope) => cacheKey(need(scope, 't', shape), need(scope, v, shape) as BrandedId);
  }
  throw new InvalidArgumentError('script header', `key shape ${shape} is not in the keyspace registry`);
}

/** The shape a header slot declares: the first word of its doc text. */
export function shapeOf(doc: string): string {
  return (doc.trim().split(/\s+/)[0] ?? '').replace(/[;,.]$/, '');
}
