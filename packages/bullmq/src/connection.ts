import { Connection, InvalidArgumentError, strictOptions, type ConnectOptions } from '@echo/protocol/queue';
import { NotSupportedError } from './errors.js';

/**
 * The part of an ioredis client (`new Redis(...)` or `new Cluster(...)`) read to open Echo's own
 * connection to the same server: its options, or a cluster's start-up nodes.
 */
export interface RedisClientLike {
  /** ioredis keeps the options it was made with here. */
  readonly options: { readonly host?: string | undefined; readonly port?: number | undefined; readonly username?: string | null | undefined; readonly password?: string | null | undefined; readonly db?: number | undefined };
  /** Present on every ioredis client: how BullMQ's docs tell an instance from options. */
  readonly sendCommand: (...args: never[]) => unknown;
  /** A cluster client's seeds. */
  readonly startupNodes?: readonly (string | number | { readonly host?: string; readonly port?: number })[];
}

/**
 * BullMQ's `connection`: the ioredis options a BullMQ app passes, an ioredis instance (Echo opens
 * its own connection to the same server; the instance stays the app's to close), or an Echo
 * `Connection` to share.
 */
export type ConnectionOptions =
  | Connection
  | RedisClientLike
  | {
      readonly host?: string;
      readonly port?: number;
      readonly username?: string;
      readonly password?: string;
      readonly db?: number;
      /** BullMQ asks for `null` on workers; Echo's connector already waits out reconnects. */
      readonly maxRetriesPerRequest?: null;
    };

const checkConnection = strictOptions('connection', {
  known: ['host', 'port', 'username', 'password', 'db', 'maxRetriesPerRequest'],
  hints: {
    url: 'pass host and port (and username, password, db) here',
    tls: 'TLS is not offered by the Echo connector yet',
    keyPrefix: "Echo's keys have no prefix (they start with emq:)",
    enableOfflineQueue: "Echo's connector queues calls while it reconnects; this option has no counterpart",
    enableReadyCheck: "Echo's connector checks readiness itself; this option has no counterpart",
    retryStrategy: "Echo's connector reconnects with its own backoff; this option has no counterpart",
  },
});

/** The Echo open options for a BullMQ `connection`: share a Connection, or open one we own. */
export function echoConnection(connection: ConnectionOptions | undefined): { connection: Connection } | { connect: ConnectOptions } {
  if (connection instanceof Connection) return { connection };
  if (connection === undefined) return { connect: { host: '127.0.0.1', port: 6379 } };
  if (typeof connection !== 'object') throw new InvalidArgumentError('connection', 'must be connection options ({ host, port }) or an Echo Connection');
  if (typeof (connection as { sendCommand?: unknown }).sendCommand === 'function') return fromClient(connection as RedisClientLike);
  const options = connection as Exclude<ConnectionOptions, Connection | RedisClientLike>;
  checkConnection(options);
  if (options.maxRetriesPerRequest !== undefined && (options.maxRetriesPerRequest as unknown) !== null) {
    throw new NotSupportedError('connection.maxRetriesPerRequest', 'only null (the value BullMQ asks for) is accepted: the connector waits out reconnects');
  }
  const { host, port, username, password, db } = options;
  return {
    connect: {
      host: host ?? '127.0.0.1',
      port: port ?? 6379,
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
      ...(db === undefined ? {} : { db }),
    },
  };
}

/**
 * Echo's open options for an ioredis client: the same server (or cluster seeds) and credentials.
 * BullMQ shares the instance; Echo's connector needs its own sockets (fencing, its reply mapping),
 * so it opens a connection of its own and never closes the app's client.
 */
function fromClient(client: RedisClientLike): { connect: ConnectOptions } {
  const { host, port, username, password, db } = client.options;
  const credentials = { ...(username === undefined || username === null ? {} : { username }), ...(password === undefined || password === null ? {} : { password }) };
  if (client.startupNodes !== undefined && client.constructor.name === 'Cluster') {
    const cluster = client.startupNodes.map((node) => {
      if (typeof node === 'object') return { host: node.host ?? '127.0.0.1', port: node.port ?? 6379 };
      if (typeof node === 'number') return { host: '127.0.0.1', port: node };
      const at = node.lastIndexOf(':');
      return at === -1 ? { host: node, port: 6379 } : { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
    });
    return { connect: { cluster, ...credentials } };
  }
  return { connect: { host: host ?? '127.0.0.1', port: port ?? 6379, ...credentials, ...(db === undefined || db === 0 ? {} : { db }) } };
}
