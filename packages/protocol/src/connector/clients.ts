import { Cluster, Redis } from 'ioredis';
import type { ResolvedOptions } from './options.js';

/** The ioredis client for one server, configured so the connector owns replay, resubscribe and readiness. */
export function createRedis(o: ResolvedOptions, retry: (attempt: number) => number | null): Redis {
  return new Redis({
    host: o.host,
    port: o.port,
    ...(o.username === undefined ? {} : { username: o.username }),
    ...(o.password === undefined ? {} : { password: o.password }),
    db: o.db,
    ...(o.name === undefined ? {} : { connectionName: o.name }),
    lazyConnect: true,
    // Our gate queues callers until the fence passes; ioredis must not replay anything itself.
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    // We re-issue subscriptions ourselves, after the fence: ioredis would send them first.
    autoResubscribe: false,
    enableReadyCheck: false,
    disableClientInfo: true,
    maxRetriesPerRequest: null,
    connectTimeout: o.connectTimeoutMs,
    retryStrategy: retry,
  });
}

/** The ioredis cluster client; the same ownership rules, per node. */
export function createCluster(o: ResolvedOptions, retry: (attempt: number) => number | null): Cluster {
  return new Cluster(
    (o.cluster ?? []).map((n) => ({ host: n.host, port: n.port })),
    {
      lazyConnect: true,
      enableReadyCheck: true,
      enableOfflineQueue: true,
      maxRedirections: 16,
      clusterRetryStrategy: retry,
      redisOptions: {
        ...(o.username === undefined ? {} : { username: o.username }),
        ...(o.password === undefined ? {} : { password: o.password }),
        ...(o.name === undefined ? {} : { connectionName: o.name }),
        disableClientInfo: true,
        autoResendUnfulfilledCommands: false,
        connectTimeout: o.connectTimeoutMs,
      },
    },
  );
}
