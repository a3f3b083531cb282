import { Cache, type NamespaceOptions } from '@echo/cache';
import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisBusDriver, redisDriver } from 'bentocache/drivers/redis';
import type { BenchTarget } from './target.js';

/** The ~5 KB JSON value every row reads and writes. */
export const VALUE = { blob: 'x'.repeat(5000), n: 1, tags: ['a', 'b', 'c'], nested: { id: 42, ok: true } };
export type Value = typeof VALUE;

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
  const namespace = await cache.namespace<Value>({ name: ns, ttl: TTL, maxSize: 100_000, ...options });
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
}

/** A BentoCache 1.6.1 namespace: memory L1 as asked, Redis L2, and the Redis bus when there is an L1. */
export function bento(target: BenchTarget, ns: string, shape: BentoShape): System {
  const connection = { host: target.host, port: target.port };
  let store = bentostore();
  if (shape.l1 !== false) store = store.useL1Layer(memoryDriver({ maxItems: 100_000, ...(shape.l1 === 'shared' ? { serialize: false } : {}) }));
  store = store.useL2Layer(redisDriver({ connection }));
  if (shape.l1 !== false) store = store.useBus(redisBusDriver({ connection }));
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
