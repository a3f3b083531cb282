import type { Script } from '../scripts/script.js';
import type { Arg } from './call-shape.js';
import { createCluster, createRedis, livenessOf, sendBatch, type Client, type Wire } from './clients.js';
import { Gate, type ConnectionState } from './gate.js';
import { ClusterCalls } from './cluster-calls.js';
import { InFlight } from './in-flight.js';
import { masterNodes, type MasterNode } from './masters.js';
import { PolicyWatch } from './memory-policy.js';
import { reconnectDelay, resolveOptions, type ConnectOptions, type ResolvedOptions } from './options.js';
import { PubSub } from './pub-sub.js';
import { ScriptRunner, type BatchResult, type ScriptCall } from './script-runner.js';
import { emptyStats, type ConnectionStats } from './stats.js';
import type { AnySubscribeOptions, Payload, SubscribeOptions, Subscription } from './subscription.js';

export type { BatchResult, ScriptCall } from './script-runner.js';

/**
 * A fenced connection to a Redis server or cluster: every transition goes out as EVALSHA, falls back
 * to one `SCRIPT LOAD` on NOSCRIPT, and maps error replies through the one registry. No caller
 * command reaches the server on a (re)connect until the version fence has passed; a fence, auth or
 * boot failure on a reconnect stops the connection for good and fails every waiter with that error.
 */
export class Connection {
  readonly #options: ResolvedOptions;
  readonly #wire: Wire;
  readonly #client: Client;
  readonly #stats = emptyStats();
  readonly #gate: Gate;
  readonly #scripts: ScriptRunner;
  readonly #pubSub: PubSub;
  readonly #policy: PolicyWatch;

  private constructor(options: ResolvedOptions, policy: PolicyWatch, wire: Wire = {}) {
    this.#options = options;
    this.#policy = policy;
    this.#wire = wire;
    const retry = (attempt: number): number | null => (this.#gate.stopped() ? null : reconnectDelay(attempt));
    const inFlight = options.cluster ? new ClusterCalls(options.reconnectWaitMs + options.replyTimeoutMs) : new InFlight();
    const client = inFlight instanceof ClusterCalls ? createCluster(options, retry, inFlight) : createRedis(options, retry, inFlight, wire);
    this.#client = client;
    const stats = this.#stats;
    const mapError = (error: unknown, script?: Script): Error => this.#gate.mapError(error, script);
    const isReady = (): boolean => this.#gate.state === 'ready';
    const whenReady = (): Promise<void> => this.#gate.whenReady();
    this.#pubSub = new PubSub({
      client,
      options,
      ready: whenReady,
      isReady,
      stopped: () => this.#gate.stopped(),
      mapError,
      sent: () => {
        stats.commands++;
      },
    });
    this.#gate = new Gate({
      client,
      options,
      wire,
      inFlight,
      stats,
      policy,
      liveness: livenessOf(client),
      fenced: () => this.#pubSub.resubscribe(),
      ended: () => this.#pubSub.endAll(),
    });
    this.#scripts = new ScriptRunner({ client, stats, strictKeys: options.strictKeys, isReady, whenReady, mapError });
    client.on('messageBuffer', (channel: Buffer | string, payload: unknown) => {
      const name = typeof channel === 'string' ? channel : channel.toString();
      this.#wire.sink?.(name, payload);
      this.#pubSub.deliver(name, payload);
    });
  }

  /**
   * Opens and fences a connection. Resolves only once `{emq}:version` has been claimed or verified;
   * rejects with {@link ConnectError}, {@link AuthError} or {@link VersionFenceError}, or with
   * `EvictionPolicyError` when a master may evict keys (see `ConnectOptions.evictionPolicy`). The
   * policy is read before the fence is claimed, so a refused open writes nothing; it is read again
   * on every reconnect.
   *
   * @throws UnknownOptionError for an option the connector does not know, before any socket opens.
   */
  static async connect(options: ConnectOptions | string = {}): Promise<Connection> {
    const resolved = resolveOptions(options);
    const sentinel = resolved.sentinel;
    const policy = new PolicyWatch(resolved.evictionPolicy, resolved.onWarning, sentinel && (() => `the primary of ${sentinel.name}`));
    const connection = new Connection(resolved, policy);
    await connection.#gate.open();
    return connection;
  }

  /** True when talking to a Redis Cluster. */
  get isCluster(): boolean {
    return this.#options.cluster !== undefined;
  }

  /** True when every script runs as its strict twin, which refuses undeclared keys (protocol.md §6). */
  get strictKeys(): boolean {
    return this.#options.strictKeys;
  }

  /** The `CLIENT SETNAME` this connection uses, if any. */
  get name(): string | undefined {
    return this.#options.name;
  }

  /** `ready` while fenced and usable; `closed` after {@link close}; `fatal` after a fence or auth failure. */
  get status(): ConnectionState {
    return this.#gate.state;
  }

  /** A snapshot of the wire counters. */
  stats(): Readonly<ConnectionStats> {
    return { ...this.#stats };
  }

  /** Opens another fenced connection with the same options, for blocking verbs and subscriptions. */
  async duplicate(name?: string): Promise<Connection> {
    const connection = new Connection(this.#named(name), this.#policy);
    await connection.#gate.open();
    return connection;
  }

  /**
   * Runs one transition: EVALSHA first; on NOSCRIPT, `SCRIPT LOAD` once, check the digest, resend
   * once. The resent call's errors map exactly like a first attempt's, so a cold script cache is
   * invisible to the caller.
   *
   * @internal The wire under `execute`; callers send typed transitions with `execute(conn, t)`.
   */
  run(script: Script, keys: readonly string[], args: readonly Arg[] = []): Promise<unknown> {
    return this.#scripts.run(script, keys, args);
  }

  /**
   * Runs many transitions in one pipeline. Members are mapped one by one: a failing member never
   * fails its neighbours. Members that met NOSCRIPT are resent once after a load.
   *
   * @internal The wire under `executeAll`; callers send typed transitions with `executeAll(conn, ts)`.
   */
  runBatch(calls: readonly ScriptCall[]): Promise<BatchResult[]> {
    return this.#scripts.runBatch(calls);
  }

  /** Sends a plain command (reads, streams, pub/sub) through the same gate and error mapping. */
  async command(name: string, ...args: Arg[]): Promise<unknown> {
    if (this.#gate.state !== 'ready') await this.#gate.whenReady();
    this.#stats.commands++;
    try {
      return await this.#client.call(name, ...args);
    } catch (error) {
      throw this.#gate.mapError(error);
    }
  }

  /** Like {@link command}, but bulk replies arrive as `Buffer`s (for opaque payload bytes). */
  async commandBuffer(name: string, ...args: Arg[]): Promise<unknown> {
    if (this.#gate.state !== 'ready') await this.#gate.whenReady();
    this.#stats.commands++;
    try {
      return await this.#client.callBuffer(name, ...args);
    } catch (error) {
      throw this.#gate.mapError(error);
    }
  }

  /** Sends plain commands in one pipeline; each reply or error comes back in order. */
  async pipeline(commands: readonly (readonly [string, ...Arg[]])[]): Promise<BatchResult[]> {
    if (commands.length === 0) return [];
    if (this.#gate.state !== 'ready') await this.#gate.whenReady();
    this.#stats.pipelines++;
    this.#stats.commands += commands.length;
    const replies = await sendBatch(this.#client, commands, (error) => this.#gate.mapError(error));
    return replies.map(([error, value]) => (error ? { ok: false, error: this.#gate.mapError(error) } : { ok: true, value }));
  }

  /**
   * Subscribes to pub/sub channels (use a dedicated connection: see {@link duplicate}). Resolves
   * once the server confirmed the subscription, so a message published after that arrives. The
   * connector keeps the channels and re-issues them after every reconnect, once the version fence
   * has passed; each confirmation is a `subscribed` event. At most once: a message published while
   * the socket was down is gone.
   *
   * @throws InvalidArgumentError for an empty channel list or an empty channel name.
   * @throws Resp3RequiredError when the server negotiated RESP2 (protocol.md §12).
   */
  subscribe(channels: readonly string[], options?: SubscribeOptions): Promise<Subscription>;
  subscribe(channels: readonly string[], options: SubscribeOptions<true> & { readonly buffers: true }): Promise<Subscription<Buffer>>;
  subscribe(channels: readonly string[], options: AnySubscribeOptions = {}): Promise<Subscription<Payload>> {
    return this.#pubSub.subscribe(channels, options);
  }

  /**
   * Opens a dedicated fenced connection with these options (under `name`, when given) and `wire`'s
   * hooks; `bind` gets its close before the fence runs. Resolves once it is fenced.
   *
   * @internal The tracking lane's socket: callers open one with `openTracking(connection, …)`.
   */
  async openWired(wire: Wire, name: string | undefined, bind: (close: () => Promise<void>) => void): Promise<void> {
    const connection = new Connection(this.#named(name), this.#policy, wire);
    bind(() => connection.close({ immediate: true }));
    await connection.#gate.open();
  }

  /** Every master (one on a standalone server), each answering commands itself: `SCRIPT FLUSH`, `SCAN`. */
  masters(): readonly MasterNode[] {
    return masterNodes(this.#client, async (node, name, args) => {
      if (this.#gate.state !== 'ready') await this.#gate.whenReady();
      this.#stats.commands++;
      return this.#gate.mapped(() => node.call(name, ...args));
    });
  }

  /**
   * Closes the connection; every later call fails with {@link ConnectionClosedError}. Idempotent.
   * By default pending replies are awaited (`QUIT`); `immediate` drops the socket at once, which is
   * how a blocked read (`BLPOP`, `XREADGROUP BLOCK`) is interrupted.
   */
  async close(options: { immediate?: boolean } = {}): Promise<void> {
    await this.#gate.close(options.immediate);
  }

  /** These options, under another `CLIENT SETNAME` when one is given. */
  #named(name: string | undefined): ResolvedOptions {
    return name === undefined ? this.#options : { ...this.#options, name };
  }
}
