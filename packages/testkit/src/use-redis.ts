import { Redis } from 'ioredis';
import { TEST_CLIENT_DEFAULTS, type ClientOptions, type ReplyMappingMode } from './client-options.js';
import { startRedis, type RedisServer } from './server.js';

/** The environment variable naming an existing server to test against instead of spawning one. */
export const REDIS_URL_ENV = 'REDIS_URL';

interface RedisTargetBase {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** A new ioredis client for this server (test-friendly retry defaults; any option can be overridden). */
  client<M extends ReplyMappingMode = 'legacy'>(options?: ClientOptions<M>): Redis<M>;
}

/** `REDIS_URL` was set: the server belongs to someone else and is never started or stopped here. */
export interface ExternalRedisTarget extends RedisTargetBase {
  readonly external: true;
}

/**
 * A server spawned by {@link useRedis} and shared by every caller in this process. `server` is
 * there for diagnostics (`logTail()`); stopping or killing it breaks the other tests sharing it,
 * so tests that crash a server should own one via {@link startRedis}.
 */
export interface SpawnedRedisTarget extends RedisTargetBase {
  readonly external: false;
  readonly server: RedisServer;
}

/** What {@link useRedis} returns; branch on `external`. */
export type RedisTarget = ExternalRedisTarget | SpawnedRedisTarget;

/** Kept on `globalThis` so that re-evaluated copies of this module still share one server. */
const SHARED_KEY: unique symbol = Symbol.for('@echo/testkit/use-redis@1');

interface SharedSlot {
  current: Promise<RedisServer> | undefined;
}

function external(url: string): ExternalRedisTarget {
  const parsed = new URL(url);
  return {
    url,
    host: parsed.hostname,
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    external: true,
    client: <M extends ReplyMappingMode = 'legacy'>(options?: ClientOptions<M>): Redis<M> =>
      new Redis<M>(url, { ...TEST_CLIENT_DEFAULTS, ...options }),
  };
}

function spawned(server: RedisServer): SpawnedRedisTarget {
  return {
    url: server.url,
    host: server.host,
    port: server.port,
    external: false,
    server,
    client: <M extends ReplyMappingMode = 'legacy'>(options?: ClientOptions<M>): Redis<M> => server.client(options),
  };
}

/**
 * The server a test file should use, typically from `beforeAll`:
 *
 * - `REDIS_URL` set: connects to that server, spawns nothing (CI with a service container, or a
 *   developer's own server). Read on every call, so it can be switched between calls.
 * - otherwise: spawns one server per process on first use and returns the same one afterwards,
 *   so test files share it; isolate data with {@link uniqueName} keys rather than FLUSHALL.
 *   It is stopped by the exit hooks (or {@link stopAll}), not by the caller.
 *
 * A failed spawn is not memoized, so the next caller tries again.
 */
export async function useRedis(): Promise<RedisTarget> {
  const url = process.env[REDIS_URL_ENV];
  if (url !== undefined && url !== '') return external(url);
  const holder = globalThis as typeof globalThis & { [SHARED_KEY]?: SharedSlot };
  const slot = holder[SHARED_KEY] ?? { current: undefined };
  holder[SHARED_KEY] = slot;
  const pending = (slot.current ??= startRedis());
  try {
    const server = await pending;
    if (!server.running) throw new Error(`The shared server (port ${server.port}) is no longer running.`);
    return spawned(server);
  } catch (error) {
    if (slot.current === pending) slot.current = undefined;
    throw error;
  }
}
