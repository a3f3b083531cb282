import { InvalidArgumentError } from '../errors/validation.js';

/** A cluster seed node. */
export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

/** How to reach the server and how patient to be. */
export interface ConnectOptions {
  /** `redis://[user:password@]host:port[/db]`. Ignored when `cluster` is given. */
  readonly url?: string;
  readonly host?: string;
  readonly port?: number;
  readonly username?: string;
  readonly password?: string;
  /** Database index; `SELECT`ed on every (re)connect. */
  readonly db?: number;
  /** Seed nodes of a Redis Cluster; the same API then runs over the cluster. */
  readonly cluster?: readonly NodeAddress[];
  /** `CLIENT SETNAME` on every (re)connect, to find our connections in `CLIENT LIST`. */
  readonly name?: string;
  /** How long the first connect (socket, handshake and fence) may take. Default 10000 ms. */
  readonly connectTimeoutMs?: number;
  /** How long a call waits for a lost connection to come back before failing. Default 30000 ms. */
  readonly reconnectWaitMs?: number;
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
  readonly name: string | undefined;
  readonly connectTimeoutMs: number;
  readonly reconnectWaitMs: number;
  readonly strictKeys: boolean;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new InvalidArgumentError(name, 'must be a positive integer');
  return value;
}

/** Validates options at the boundary so a bad URL or port fails before any socket opens. */
export function resolveOptions(options: ConnectOptions | string = {}): ResolvedOptions {
  const opts: ConnectOptions = typeof options === 'string' ? { url: options } : options;
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
  return {
    host,
    port,
    username,
    password,
    db,
    cluster: opts.cluster,
    name: opts.name,
    connectTimeoutMs: positive('connectTimeoutMs', opts.connectTimeoutMs, 10_000),
    reconnectWaitMs: positive('reconnectWaitMs', opts.reconnectWaitMs, 30_000),
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
