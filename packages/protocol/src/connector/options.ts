import type { EchoError } from '../errors/echo-error.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { checkConnectOptions, checkNodeAddress, checkSentinelOptions } from './option-check.js';

/** A cluster seed node. */
export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * A primary watched by Redis Sentinel: the connector asks the sentinels where the primary of
 * `name` is on every (re)connect, so after a failover it reconnects to the promoted replica.
 */
export interface SentinelConfig {
  /** Some or all of the sentinels; the first that answers is asked. */
  readonly sentinels: readonly NodeAddress[];
  /** The monitored master's name (`sentinel monitor <name> ...`). */
  readonly name: string;
  /** Credentials for the sentinels themselves, when they differ from the data nodes'. */
  readonly username?: string;
  readonly password?: string;
}

/**
 * What to do when a server may evict keys (`maxmemory-policy` other than `noeviction`): `refuse`
 * fails the connect with {@link EvictionPolicyError} (and, when a reconnect finds it, stops the
 * connection: every later call fails with that error), `warn` reports it through `onWarning` and
 * goes on, `allow` does not check (no `INFO` is sent).
 */
export type EvictionPolicyMode = 'refuse' | 'warn' | 'allow';

/** How to reach the server and how patient to be. */
export interface ConnectOptions {
  /** `redis://[user:password@]host:port[/db]`. Ignored when `cluster` is given. */
  readonly url?: string;
  /** The server's host; default `127.0.0.1` (`url`'s host wins). */
  readonly host?: string;
  /** The server's port; default 6379 (`url`'s port wins). */
  readonly port?: number;
  /** The ACL user (`AUTH username password`); default the `default` user. */
  readonly username?: string;
  /** The password (of `username`, or `requirepass`). */
  readonly password?: string;
  /** Database index; `SELECT`ed on every (re)connect. */
  readonly db?: number;
  /** Seed nodes of a Redis Cluster; the same API then runs over the cluster. */
  readonly cluster?: readonly NodeAddress[];
  /** Reach the primary through Redis Sentinel; `host`, `port` and `url`'s address are then ignored. */
  readonly sentinel?: SentinelConfig;
  /**
   * Checked on every master before the version fence is claimed, at connect and again after every
   * reconnect: a server that may evict keys can lose jobs. Default `refuse`. A refused connect
   * writes nothing. When the user may not run `INFO` (ACL), the policy cannot be read: that is
   * reported through `onWarning` and the connect goes on.
   */
  readonly evictionPolicy?: EvictionPolicyMode;
  /**
   * Hears the connector's warnings (eviction policy), each once per master and policy for a
   * connection and the ones duplicated from it; default `process.emitWarning`.
   */
  readonly onWarning?: (warning: EchoError) => void;
  /** `CLIENT SETNAME` on every (re)connect, to find our connections in `CLIENT LIST`. */
  readonly name?: string;
  /** How long the first connect (socket, handshake and fence) may take. Default 10000 ms. */
  readonly connectTimeoutMs?: number;
  /** How long a call waits for a lost connection to come back before failing. Default 30000 ms. */
  readonly reconnectWaitMs?: number;
  /**
   * How long a call may wait for its reply, beyond what a blocking call (`BLPOP`, `XREAD BLOCK`,
   * `WAIT`) asked to block for, while the socket hears nothing at all. Past it the link is presumed
   * dead (a half-open socket, replies blackholed): the calls waiting on it fail with
   * `ConnectionLostError`, the socket is dropped and the connector reconnects, instead of waiting
   * minutes for the OS to reset it. `0` turns the watch off. Default 5000 ms.
   */
  readonly replyTimeoutMs?: number;
  /**
   * Route every script through its strict twin, which refuses undeclared keys (protocol.md §6).
   * Default: on when `ECHO_STRICT_KEYS=1`, as in Echo's own tests.
   */
  readonly strictKeys?: boolean;
}

/** {@link ConnectOptions} with every default applied. */
export interface ResolvedOptions {
  readonly host: string;
  readonly port: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly db: number;
  readonly cluster: readonly NodeAddress[] | undefined;
  readonly sentinel: SentinelConfig | undefined;
  readonly evictionPolicy: EvictionPolicyMode;
  readonly onWarning: (warning: EchoError) => void;
  readonly name: string | undefined;
  readonly connectTimeoutMs: number;
  readonly reconnectWaitMs: number;
  readonly replyTimeoutMs: number;
  readonly strictKeys: boolean;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new InvalidArgumentError(name, 'must be a positive integer');
  return value;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(name, 'must be a non-negative integer (0 turns it off)');
  return value;
}

const EVICTION_MODES: readonly EvictionPolicyMode[] = ['refuse', 'warn', 'allow'];

function defaultWarning(warning: EchoError): void {
  process.emitWarning(warning.message, { code: `ECHO_${warning.code.toUpperCase()}` });
}

function checkSentinel(opts: ConnectOptions): void {
  const sentinel = opts.sentinel;
  if (sentinel === undefined) return;
  checkSentinelOptions(sentinel);
  for (const node of sentinel.sentinels) checkNodeAddress(node);
  if (opts.cluster !== undefined) throw new InvalidArgumentError('sentinel', 'give cluster or sentinel, not both');
  if (sentinel.sentinels.length === 0) throw new InvalidArgumentError('sentinel', 'needs at least one sentinel address');
  if (typeof sentinel.name !== 'string' || sentinel.name === '') throw new InvalidArgumentError('sentinel', 'needs the monitored master name');
  for (const node of sentinel.sentinels) {
    if (!Number.isInteger(node.port) || node.port <= 0 || node.port > 65535) throw new InvalidArgumentError('sentinel', `port must be 1..65535, got ${node.port}`);
  }
}

/**
 * Validates options at the boundary so a bad URL or port, or a key the connector does not know,
 * fails before any socket opens.
 *
 * @throws UnknownOptionError for an unknown key (with the name to use when it is an ioredis or
 *   node-redis spelling); InvalidArgumentError for a bad value.
 */
export function resolveOptions(options: ConnectOptions | string = {}): ResolvedOptions {
  if (typeof options !== 'string') checkConnectOptions(options);
  const opts: ConnectOptions = typeof options === 'string' ? { url: options } : options;
  for (const node of opts.cluster ?? []) checkNodeAddress(node);
  let host = opts.host ?? '127.0.0.1';
  let port = opts.port ?? 6379;
  let username = opts.username;
  let password = opts.password;
  let db = opts.db ?? 0;
  if (opts.url !== undefined) {
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch {
      throw new InvalidArgumentError('url', `not a URL: ${opts.url}`);
    }
    if (url.protocol !== 'redis:') throw new InvalidArgumentError('url', 'only redis:// URLs are supported');
    host = url.hostname || host;
    port = url.port === '' ? 6379 : Number(url.port);
    if (url.username !== '') username ??= decodeURIComponent(url.username);
    if (url.password !== '') password ??= decodeURIComponent(url.password);
    const path = url.pathname.replace(/^\//, '');
    if (path !== '') db = Number(path);
  }
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new InvalidArgumentError('port', 'must be 1..65535');
  if (!Number.isInteger(db) || db < 0) throw new InvalidArgumentError('db', 'must be a non-negative integer');
  if (opts.cluster?.length === 0) throw new InvalidArgumentError('cluster', 'needs at least one seed node');
  checkSentinel(opts);
  const evictionPolicy = opts.evictionPolicy ?? 'refuse';
  if (!EVICTION_MODES.includes(evictionPolicy)) throw new InvalidArgumentError('evictionPolicy', `must be one of ${EVICTION_MODES.join(', ')}`);
  return {
    host,
    port,
    username,
    password,
    db,
    cluster: opts.cluster,
    sentinel: opts.sentinel,
    evictionPolicy,
    onWarning: opts.onWarning ?? defaultWarning,
    name: opts.name,
    connectTimeoutMs: positive('connectTimeoutMs', opts.connectTimeoutMs, 10_000),
    reconnectWaitMs: positive('reconnectWaitMs', opts.reconnectWaitMs, 30_000),
    replyTimeoutMs: nonNegative('replyTimeoutMs', opts.replyTimeoutMs, 5_000),
    strictKeys: opts.strictKeys ?? process.env.ECHO_STRICT_KEYS === '1',
  };
}

/**
 * Reconnect delay (protocol.md §12): 100 ms doubling to a 2000 ms cap, plus uniform jitter in
 * `[1, backoff/2 + 1]` so a fleet that lost one server does not return in lockstep.
 */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const backoff = Math.min(2000, 100 * 2 ** Math.max(0, Math.min(attempt - 1, 16)));
  const jitter = 1 + Math.floor(random() * (backoff / 2 + 1));
  return backoff + jitter;
}
