import { Cluster, Redis, type Command, type RedisOptions } from 'ioredis';
import { ConnectionLostError } from '../errors/connection.js';
import type { Arg } from './call-shape.js';
import type { ClusterCalls } from './cluster-calls.js';
import type { InFlight } from './in-flight.js';
import { Liveness } from './liveness.js';
import type { ResolvedOptions } from './options.js';

/**
 * How long a dropped socket may take to close before it is destroyed. ioredis ends the socket and
 * holds a timer (2 s by default, and it keeps the process alive) until the socket's `close`; a
 * socket that had already closed (a refused connect, a link waiting for its reconnect) never
 * closes again, so every such drop kept the process up for the whole timer: a CLI call to a closed
 * port took 2 s to exit instead of milliseconds. A live server answers the end within a round trip.
 */
export const DISCONNECT_GRACE_MS = 100;

/** The driver client behind one connection: one server, or a cluster. */
export type Client = Redis | Cluster;

/**
 * A standalone client that records every call it writes in the connector's {@link InFlight}
 * registry, through the driver's public `sendCommand`, which every call and pipeline member passes,
 * and whose socket is watched for silence (see {@link Liveness}).
 */
class TrackedRedis extends Redis {
  readonly #inFlight: InFlight;
  readonly liveness: Liveness | undefined;

  constructor(options: Omit<RedisOptions, 'replyMapping'>, inFlight: InFlight, replyTimeoutMs: number) {
    super(options);
    this.#inFlight = inFlight;
    this.liveness = replyTimeoutMs > 0 ? new Liveness(this, replyTimeoutMs) : undefined;
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    this.#inFlight.add(command);
    return super.sendCommand(command, stream);
  }
}

/** The raw calls a {@link Wire}'s `prepare` step makes, after the fence and before the gate opens. */
export interface PrepareIo {
  call(name: string, ...args: Arg[]): Promise<unknown>;
  subscribe(channel: string): Promise<void>;
}

/**
 * What a dedicated connection the connector opens for itself does beyond a plain one: speak RESP2,
 * run a step after every fence before its gate opens, and hear its socket's messages and losses
 * first-hand.
 */
export interface Wire {
  readonly resp2?: boolean;
  readonly prepare?: (io: PrepareIo) => Promise<void>;
  readonly sink?: (channel: string, payload: unknown) => void;
  readonly onLost?: () => void;
}

/**
 * The ioredis client for one server, configured so the connector owns replay, resubscribe and readiness.
 * On every (re)connect the driver sends `HELLO` (the RESP3 handshake) and, for a named connection,
 * `CLIENT SETNAME`: @sends HELLO @sends CLIENT SETNAME
 */
export function createRedis(o: ResolvedOptions, retry: (attempt: number) => number | null, inFlight: InFlight, wire: Wire = {}): Redis {
  return new TrackedRedis(
    {
      host: o.host,
      port: o.port,
      ...sentinelOptions(o),
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      db: o.db,
      ...(o.name === undefined ? {} : { connectionName: o.name }),
      ...(wire.resp2 === true ? { protocol: 2 as const } : {}),
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
      disconnectTimeout: DISCONNECT_GRACE_MS,
      retryStrategy: retry,
    },
    inFlight,
    o.replyTimeoutMs,
  );
}

/** The silence watch of a standalone client, if it has one; a cluster watches each node itself. */
export function livenessOf(client: Client): Liveness | undefined {
  return client instanceof TrackedRedis ? client.liveness : undefined;
}

/**
 * Under Sentinel, ioredis asks the sentinels for the primary on every (re)connect, so the retry
 * schedule, fence and replay rules above apply unchanged; the failover detector drops the socket as
 * soon as a sentinel announces a new primary, instead of waiting for the old one's socket to fail.
 */
function sentinelOptions(o: ResolvedOptions): Partial<RedisOptions> {
  const sentinel = o.sentinel;
  if (sentinel === undefined) return {};
  return {
    sentinels: sentinel.sentinels.map((n) => ({ host: n.host, port: n.port })),
    name: sentinel.name,
    ...(sentinel.username === undefined ? {} : { sentinelUsername: sentinel.username }),
    ...(sentinel.password === undefined ? {} : { sentinelPassword: sentinel.password }),
    failoverDetector: true,
  };
}

/**
 * A cluster client that records every call it is handed in the connector's {@link ClusterCalls},
 * wherever the driver then keeps it (a node's socket, its offline queue, a redirection's retry
 * timer): a call the driver holds past its deadline fails, and closing the connection fails what
 * is still waiting, whatever the driver's state. Until then the driver's own rules stand: a call
 * on a node that dropped is sent again once the slots are known, and a call waiting for a cluster
 * that reconnects waits for it.
 */
class TrackedCluster extends Cluster {
  readonly #calls: ClusterCalls;

  constructor(o: ResolvedOptions, retry: (attempt: number) => number | null, calls: ClusterCalls) {
    super(
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
          disconnectTimeout: DISCONNECT_GRACE_MS,
        },
      },
    );
    this.#calls = calls;
  }

  override sendCommand(...args: Parameters<Cluster['sendCommand']>): ReturnType<Cluster['sendCommand']> {
    this.#calls.hold(args[0]);
    return super.sendCommand(...args);
  }
}

/** The ioredis cluster client; the same ownership rules, per node. */
export function createCluster(o: ResolvedOptions, retry: (attempt: number) => number | null, calls: ClusterCalls): Cluster {
  const cluster = new TrackedCluster(o, retry, calls);
  // Every node's socket gets its own silence watch: a half-open link to one master stalls its slots.
  if (o.replyTimeoutMs > 0) cluster.on('+node', (node: Redis) => new Liveness(node, o.replyTimeoutMs));
  return cluster;
}

/**
 * Sends `commands` as one batch and answers each reply or error in order, as a pipeline does. To one
 * server they go back to back on its socket, corked so they leave in one write, and not through the
 * driver's `Pipeline`: measured on ioredis 6 (50 callers, 5 KB `SET`s in batches of 8), a pipeline
 * cost 43 µs of CPU per command against 24 and kept every command's arguments alive past young
 * collections (226 MB promoted over 40,000 commands against 19). A cluster gets a pipeline, which
 * routes the batch by slot.
 */
export async function sendBatch(client: Client, commands: readonly (readonly [string, ...Arg[]])[], mapError: (error: unknown) => Error): Promise<[Error | null, unknown][]> {
  if (!(client instanceof Redis)) {
    const pipe = client.pipeline();
    // Spread as given: a destructured copy per command is measurable at pipeline sizes.
    for (const command of commands) pipe.call(...command);
    return execPipeline(pipe, mapError);
  }
  // Absent until the first connect (the driver types it as always there): the calls then fail as any call does.
  const stream = client.stream as Redis['stream'] | undefined;
  stream?.cork();
  // Each call is settled into its slot as it is sent, so a member that fails while an earlier one
  // is still awaited is never an unhandled rejection.
  const sent: Promise<[Error | null, unknown]>[] = [];
  try {
    for (const command of commands) sent.push(client.call(...command).then(answered, failed));
  } finally {
    stream?.uncork();
  }
  return Promise.all(sent);
}

function answered(value: unknown): [Error | null, unknown] {
  return [null, value];
}

function failed(error: unknown): [Error | null, unknown] {
  return [error instanceof Error ? error : new Error(String(error)), undefined];
}

/** Sends a pipeline and answers its replies in order; a pipeline that never went out is a lost connection. */
async function execPipeline(pipe: ReturnType<Client['pipeline']>, mapError: (error: unknown) => Error): Promise<[Error | null, unknown][]> {
  let replies: [Error | null, unknown][] | null;
  try {
    replies = await pipe.exec();
  } catch (error) {
    throw mapError(error);
  }
  if (replies === null) throw new ConnectionLostError('pipeline aborted');
  return replies;
}
