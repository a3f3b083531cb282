import { strictOptions } from '../options/strict.js';

const SENTINEL_HINT = "sentinel: { sentinels: [{ host, port }], name } (the monitored master's name goes inside sentinel)";

/**
 * The strict check of `Connection.connect` options. The hints name what ioredis, node-redis and
 * the peers call the same thing, since those are the objects users paste in.
 */
export const checkConnectOptions = strictOptions('connect options', {
  known: [
    'url',
    'host',
    'port',
    'username',
    'password',
    'db',
    'cluster',
    'sentinel',
    'evictionPolicy',
    'onWarning',
    'name',
    'connectTimeoutMs',
    'reconnectWaitMs',
    'replyTimeoutMs',
    'strictKeys',
  ],
  hints: {
    connectionName: "ioredis's connectionName is name here (CLIENT SETNAME on every reconnect)",
    connectTimeout: "ioredis's connectTimeout is connectTimeoutMs here (milliseconds, socket, handshake and fence)",
    database: "node-redis's database is db here",
    user: 'user is username here',
    tls: 'the connector has no TLS option: reach a TLS server through a local TLS tunnel (stunnel) and connect to it with url',
    keyPrefix: "Echo's keys are fixed by the protocol (emq:{queue}:...): there is no key prefix; use distinct queue names or a db",
    sentinels: SENTINEL_HINT,
    sentinelPassword: 'sentinelPassword is sentinel.password here',
    sentinelUsername: 'sentinelUsername is sentinel.username here',
    nodes: 'cluster seed nodes are cluster: [{ host, port }] here',
    startupNodes: 'cluster seed nodes are cluster: [{ host, port }] here',
    rootNodes: "node-redis's rootNodes are cluster: [{ host, port }] here",
    socket: "node-redis's socket options are host and port here (and url for both)",
    maxRetriesPerRequest: 'a call waits up to reconnectWaitMs for a lost connection to come back, then fails with ConnectionLostError',
    retryStrategy: 'the reconnect backoff is fixed by the protocol (100 ms doubling to 2 s, with jitter); reconnectWaitMs bounds how long a call waits',
    enableOfflineQueue: 'calls made while the connection is down always wait, up to reconnectWaitMs',
    lazyConnect: 'Connection.connect always connects (and fences) before it resolves',
    autoResubscribe: 'subscriptions are always re-issued after each reconnect, once the version fence has passed',
    commandTimeout: "ioredis's commandTimeout is replyTimeoutMs here: a socket silent that long past what its oldest call asked to block for is dropped and reconnected",
    socketTimeout: 'a silent socket is dropped after replyTimeoutMs (default 5000 ms)',
    redisOptions: 'give the connection options at the top level (host, port, username, password, name)',
  },
});

/** The strict check of `ConnectOptions.sentinel`. */
export const checkSentinelOptions = strictOptions('connect options.sentinel', {
  known: ['sentinels', 'name', 'username', 'password'],
  hints: {
    masterName: 'the monitored master is sentinel.name here',
    sentinelPassword: 'sentinelPassword is sentinel.password here',
    sentinelUsername: 'sentinelUsername is sentinel.username here',
  },
});

/** The strict check of one node address (`cluster[i]`, `sentinel.sentinels[i]`). */
export const checkNodeAddress = strictOptions('node address', { known: ['host', 'port'] });
