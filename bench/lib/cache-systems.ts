import { Cache, type NamespaceOptions } from '@echo/cache';
import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisBusDriver, redisDriver } from 'bentocache/drivers/redis';
import { Redis } from 'ioredis';
import type { BenchTarget } from './target.js';
import { WireFloor } from './wire-floor.js';

/** The package's ~5 KB JSON value: one long string and a few small fields (cheap to parse). */
export const VALUE: Value = blob();

/** A fresh copy of {@link VALUE}: new objects and a new string each call. */
export function blob(): Value {
  return { blob: 'x'.repeat(5000), n: 1, tags: ['a', 'b', 'c'], nested: { id: 42, ok: true } };
}

/**
 * The issue's ~5 KB JSON value: 32 small records, as an API response is (many short strings,
 * numbers and booleans, so parsing and copying it costs what real values cost).
 */
export const RECORDS: Value = records();

/** A fresh copy of {@link RECORDS}, built as a loader builds its answer (new objects each call). */
export function records(): Value {
  return {
    items: Array.from({ length: 32 }, (_, i) => ({
      id: 1000 + i,
      name: `user-${String(i)}`,
      email: `user${String(i)}@example.com`,
      active: i % 3 !== 0,
      score: i * 1.5,
      roles: ['reader', i % 2 === 0 ? 'writer' : 'viewer'],
      address: { city: 'Lisbon', zip: `1${String(i).padStart(3, '0')}-000` },
    })),
    total: 32,
  };
}

/** A JSON value a row reads and writes. */
export type Value = Readonly<Record<string, unknown>>;

/** One cache as the bench drives it: Echo's keyed namespace or a BentoCache namespace. */
export interface System {
  readonly name: string;
  get(key: string): Promise<unknown>;
  set(key: string, value: Value): Promise<void>;
  getOrSet(key: string, factory: () => Promise<Value>): Promise<unknown>;
  /** Resolves when this instance hears about a write to `key` by another instance. */
  onInvalidated(key: string): Promise<void>;
  close(): Promise<void>;
}

const TTL = 600_000;

/** Echo's keyed namespace on its own connection. */
export async function echo(target: BenchTarget, ns: string, options: Omit<NamespaceOptions<Value>, 'name'> = {}): Promise<System> {
  const cache = await Cache.open({ connect: target.url });
  const namespace = await cache.namespace<Value>({ name: ns, ttlMs: TTL, maxSize: 100_000, ...options });
  return {
    name: 'echo',
    get: (key) => namespace.get(key),
    set: (key, value) => namespace.set(key, value),
    getOrSet: (key, factory) => namespace.getOrSet(key, factory),
    onInvalidated: (key) =>
      new Promise((resolve) => {
        const off = namespace.on('coherence', (e) => {
          if (e.keys.includes(key)) {
            off();
            resolve();
          }
        });
      }),
    close: () => cache.close(),
  };
}

/** How the BentoCache side is built: its L1 (none, copying, or sharing objects) and its bus. */
export interface BentoShape {
  /** `false`: no L1 (its L2-only store); `'copy'`: the default serializing L1; `'shared'`: `serialize: false`. */
  readonly l1: false | 'copy' | 'shared';
  /** The Redis bus beside an L1 (default true); `false` is bentocache's defaults without one. */
  readonly bus?: boolean;
}

/** A BentoCache 1.6.1 namespace: memory L1 as asked, Redis L2, and the Redis bus when there is an L1 (unless `bus: false`). */
export function bento(target: BenchTarget, ns: string, shape: BentoShape): System {
  const connection = { host: target.host, port: target.port };
  let store = bentostore();
  if (shape.l1 !== false) store = store.useL1Layer(memoryDriver({ maxItems: 100_000, ...(shape.l1 === 'shared' ? { serialize: false } : {}) }));
  store = store.useL2Layer(redisDriver({ connection }));
  if (shape.l1 !== false && shape.bus !== false) store = store.useBus(redisBusDriver({ connection }));
  const cache = new BentoCache({ default: 'c', stores: { c: store } });
  const space = cache.namespace(ns);
  return {
    name: 'bentocache',
    get: (key) => space.get({ key }),
    set: (key, value) => space.set({ key, value, ttl: TTL }).then(() => undefined),
    getOrSet: (key, factory) => space.getOrSet({ key, factory, ttl: TTL }),
    onInvalidated: (key) =>
      new Promise((resolve) => {
        const listener = (e: { message?: { keys?: string[] } }): void => {
          if (e.message?.keys?.some((k) => k.endsWith(key)) === true) {
            cache.off('bus:message:received', listener);
            resolve();
          }
        };
        cache.on('bus:message:received', listener);
      }),
    close: () => cache.disconnectAll(),
  };
}

/** The two L2 steps a hand-rolled cache takes, on some connection. */
interface TextStore {
  get(key: string): Promise<string | null>;
  set(key: string, text: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A hand-rolled cache on `store`: a `Map` of JSON text as its L1 and one plain command per L2 step
 * (`GET`, then `SET … PX`), no lease, no versions, no coherence, no expiry in L1. A miss + fill is
 * `GET`, the factory, one `JSON.stringify`, `SET` and the text kept in the map: the work any cache
 * that writes a value once and keeps a copy of it must do. Only `get`, `set` and `getOrSet` are
 * meant to be driven.
 */
function textCache(name: string, ns: string, store: TextStore): System {
  const l1 = new Map<string, string>();
  const read = async (key: string): Promise<unknown> => {
    const stored = `${ns}:${key}`;
    const held = l1.get(stored);
    if (held !== undefined) return JSON.parse(held);
    const text = await store.get(stored);
    if (text === null) return undefined;
    l1.set(stored, text);
    return JSON.parse(text);
  };
  const write = async (key: string, value: Value): Promise<void> => {
    const stored = `${ns}:${key}`;
    const text = JSON.stringify(value);
    await store.set(stored, text);
    l1.set(stored, text);
  };
  return {
    name,
    get: read,
    set: write,
    getOrSet: async (key, factory) => {
      const found = await read(key);
      if (found !== undefined) return found;
      const value = await factory();
      await write(key, value);
      return value;
    },
    onInvalidated: () => Promise.reject(new Error(`the ${name} side has no coherence`)),
    close: async () => {
      l1.clear();
      await store.close();
    },
  };
}

/**
 * The least a client on ioredis does for these rows ({@link textCache} on one ioredis connection,
 * each command sent as it is asked): its figure is the ceiling the bench prints beside the fill and
 * set rows.
 */
export function handRolled(target: BenchTarget, ns: string): System {
  const redis = new Redis({ host: target.host, port: target.port, ...(target.password !== undefined ? { password: target.password } : {}) });
  return textCache('hand-rolled', ns, {
    get: (key) => redis.get(key),
    set: (key, text) => redis.set(key, text, 'PX', TTL),
    close: async () => {
      await redis.quit();
    },
  });
}

/**
 * {@link textCache} on no driver at all ({@link WireFloor}: each tick's commands in one socket write,
 * a reply reader for what `GET` and `SET` answer): what is left of a fill or a set once a client
 * spends nothing beyond the value's JSON, the text L1 keeps and the socket. Its ratio to bentocache
 * is the floor of these rows on this machine: a goal above it is out of any Node client's reach.
 */
export async function wire(target: BenchTarget, ns: string): Promise<System> {
  const floor = await WireFloor.open(target.host, target.port, target.password);
  return textCache('wire floor', ns, {
    get: async (key) => {
      const reply = await floor.call('GET', key);
      return typeof reply === 'string' ? reply : null;
    },
    set: (key, text) => floor.call('SET', key, text, 'PX', TTL),
    close: () => floor.close(),
  });
}
