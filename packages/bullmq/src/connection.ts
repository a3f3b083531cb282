import { Connection, InvalidArgumentError, strictOptions, type ConnectOptions } from '@echo/protocol/queue';
import { NotSupportedError } from './errors.js';

/**
 * BullMQ's `connection`: the ioredis options a BullMQ app passes, or an Echo `Connection` to share.
 * An ioredis instance cannot be used: Echo talks to Redis through its own connector.
 */
export type ConnectionOptions =
  | Connection
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
  if (typeof (connection as { sendCommand?: unknown }).sendCommand === 'function') {
    throw new NotSupportedError('connection (an ioredis instance)', 'Echo opens its own connections; pass { host, port } or an Echo Connection');
  }
  checkConnection(connection);
  if (connection.maxRetriesPerRequest !== undefined && (connection.maxRetriesPerRequest as unknown) !== null) {
    throw new NotSupportedError('connection.maxRetriesPerRequest', 'only null (the value BullMQ asks for) is accepted: the connector waits out reconnects');
  }
  const { host, port, username, password, db } = connection;
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
