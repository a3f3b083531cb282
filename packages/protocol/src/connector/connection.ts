import { Redis, type Cluster } from 'ioredis';
import {
  AuthError,
  ConnectError,
  ConnectionClosedError,
  ConnectionLostError,
  VersionFenceError,
} from '../errors/connection.js';
import { EchoError } from '../errors/echo-error.js';
import { mapReplyError } from '../errors/registry.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { ServerError } from '../errors/wire.js';
import type { Script } from '../scripts/script.js';
import { strictVariant } from '../scripts/strict.js';
import { checkCall, type Arg } from './call-shape.js';
import { deferred, within, type Deferred } from './deferred.js';
import { isAuthFailure, isNoScript, rejected, toConnectError } from './failures.js';
import { claimOrVerify } from './fence.js';
import { checkDigest, loadOnMasters } from './script-load.js';
import { createCluster, createRedis, type Wire } from './clients.js';
import { InFlight } from './in-flight.js';
import { masterNodes, type MasterNode } from './masters.js';
import { reconnectDelay, resolveOptions, type ConnectOptions, type ResolvedOptions } from './options.js';
import { emptyStats, type ConnectionStats } from './stats.js';
import { checkNames, PubSub } from './pub-sub.js';
import type { AnySubscribeOptions, Payload, SubscribeOptions, Subscription } from './subscription.js';
import { Tracking, type TrackingOptions } from './tracking.js';

type Client = Redis | Cluster;

/** One script call in a batch. */
export interface ScriptCall {
  readonly script: Script;
  readonly keys: readonly string[];
  readonly args: readonly Arg[];
}

/** The outcome of one member of a batch; members fail independently. */
export type BatchResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error };

type State = 'connecting' | 'ready' | 'down' | 'closed' | 'fatal';

/** How soon a failed heal of the gate looks at the client again. */
const HEAL_RETRY_MS = 250;

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
  readonly #inFlight = new InFlight();
  readonly #stats = emptyStats();
  #state: State = 'connecting';
  #gate: Deferred<undefined> = deferred<undefined>();
  #fatal: Error | undefined;
  #everReady = false;
  readonly #loading = new Map<string, Promise<void>>();
  #healing: Promise<void> | undefined;
  readonly #pubSub: PubSub;

  private constructor(options: ResolvedOptions, wire: Wire = {}) {
    this.#options = options;
    this.#wire = wire;
    const retry = (attempt: number): number | null => (this.#stopped() ? null : reconnectDelay(attempt));
    this.#client = options.cluster ? createCluster(options, retry) : createRedis(options, retry, this.#inFlight, wire);
    this.#pubSub = new PubSub({
      client: this.#client,
      ready: () => this.#whenReady(),
      isReady: () => this.#state === 'ready',
      mapError: (error) => this.#mapError(error),
      sent: () => {
        this.#stats.commands++;
      },
    });
    this.#client.on('ready', () => void this.#onReady());
    this.#client.on('close', () => this.#onClose());
    this.#client.on('error', (error: Error) => this.#onError(error));
    this.#client.on('messageBuffer', (channel: Buffer | string, payload: unknown) => {
      const name = typeof channel === 'string' ? channel : channel.toString();
      this.#wire.sink?.(name, payload);
      this.#pubSub.deliver(name, payload);
    });
  }

  /**
   * Opens and fences a connection. Resolves only once `{emq}:version` has been claimed or verified;
   * rejects with {@link ConnectError}, {@link AuthError} or {@link VersionFenceError}.
   */
  static async connect(options: ConnectOptions | string = {}): Promise<Connection> {
    const connection = new Connection(resolveOptions(options));
    await connection.#open();
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
  get status(): State {
    return this.#state;
  }

  /** A snapshot of the wire counters. */
  stats(): Readonly<ConnectionStats> {
    return { ...this.#stats };
  }

  /** Opens another fenced connection with the same options, for blocking verbs and subscriptions. */
  async duplicate(name?: string): Promise<Connection> {
    const connection = new Connection(this.#named(name));
    await connection.#open();
    return connection;
  }

  /**
   * Runs one transition: EVALSHA first; on NOSCRIPT, `SCRIPT LOAD` once, check the digest, resend
   * once. The resent call's errors map exactly like a first attempt's, so a cold script cache is
   * invisible to the caller.
   */
  async run(script: Script, keys: readonly string[], args: readonly Arg[] = []): Promise<unknown> {
    checkCall(script, keys, args);
    if (this.#state !== 'ready') await this.#whenReady();
    const s = this.#options.strictKeys ? strictVariant(script) : script;
    this.#stats.commands++;
    this.#stats.evalshaCalls++;
    try {
      return await this.#client.call('EVALSHA', s.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw this.#mapError(error, s);
      await this.#load(s);
      this.#stats.evalshaCalls++;
      try {
        return await this.#client.call('EVALSHA', s.sha, keys.length, ...keys, ...args);
      } catch (retryError) {
        if (!isNoScript(retryError) || !this.isCluster) throw this.#mapError(retryError, s);
        return this.#evalSource(s, keys, args);
      }
    }
  }

  /**
   * Runs many transitions in one pipeline. Members are mapped one by one: a failing member never
   * fails its neighbours. Members that met NOSCRIPT are resent once after a load.
   */
  async runBatch(calls: readonly ScriptCall[]): Promise<BatchResult[]> {
    if (calls.length === 0) return [];
    for (const call of calls) checkCall(call.script, call.keys, call.args);
    if (this.#state !== 'ready') await this.#whenReady();
    const variants = calls.map((c) => (this.#options.strictKeys ? strictVariant(c.script) : c.script));
    const results = await this.#pipelineEval(calls, variants, calls.map((_, i) => i));
    const cold = results.flatMap((r, i) => (!r.ok && isNoScript(r.error) ? [i] : []));
    if (cold.length > 0) {
      for (const s of new Set(cold.map((i) => variants[i] as Script))) await this.#load(s);
      const again = await this.#pipelineEval(calls, variants, cold);
      cold.forEach((index, j) => (results[index] = again[j] as BatchResult));
      if (this.isCluster) {
        for (const index of cold) {
          const r = results[index] as BatchResult;
          if (r.ok || !isNoScript(r.error)) continue;
          const call = calls[index] as ScriptCall;
          results[index] = await this.#evalSource(variants[index] as Script, call.keys, call.args).then(
            (value): BatchResult => ({ ok: true, value }),
            (error: unknown): BatchResult => ({ ok: false, error: error as Error }),
          );
        }
      }
    }
    return results.map((r, i) => (r.ok || r.error instanceof EchoError ? r : { ok: false, error: this.#mapError(r.error, variants[i] as Script) }));
  }

  /** Sends a plain command (reads, streams, pub/sub) through the same gate and error mapping. */
  async command(name: string, ...args: Arg[]): Promise<unknown> {
    if (this.#state !== 'ready') await this.#whenReady();
    this.#stats.commands++;
    try {
      return await this.#client.call(name, ...args);
    } catch (error) {
      throw this.#mapError(error);
    }
  }

  /** Like {@link command}, but bulk replies arrive as `Buffer`s (for opaque payload bytes). */
  async commandBuffer(name: string, ...args: Arg[]): Promise<unknown> {
    if (this.#state !== 'ready') await this.#whenReady();
    this.#stats.commands++;
    try {
      return await this.#client.callBuffer(name, ...args);
    } catch (error) {
      throw this.#mapError(error);
    }
  }

  /** Sends plain commands in one pipeline; each reply or error comes back in order. */
  async pipeline(commands: readonly (readonly [string, ...Arg[]])[]): Promise<BatchResult[]> {
    if (commands.length === 0) return [];
    if (this.#state !== 'ready') await this.#whenReady();
    const pipe = this.#client.pipeline();
    for (const [name, ...args] of commands) pipe.call(name, ...args);
    this.#stats.pipelines++;
    this.#stats.commands += commands.length;
    const replies = await this.#execPipeline(pipe);
    return replies.map(([error, value]) => (error ? { ok: false, error: this.#mapError(error) } : { ok: true, value }));
  }

  /**
   * Pops the head of list `key`, waiting up to `timeoutMs` (0: until a push or {@link close}) for
   * one to arrive (`BLPOP`). Answers the popped value, or `null` on timeout. It holds the socket
   * while it waits, so call it on a dedicated connection (see {@link duplicate});
   * `close({ immediate: true })` interrupts it with {@link ConnectionClosedError}.
   *
   * @throws InvalidArgumentError for an empty key or a timeout that is not a non-negative integer.
   */
  async blockingPop(key: string, timeoutMs: number): Promise<string | null> {
    if (typeof key !== 'string' || key === '') throw new InvalidArgumentError('key', 'must be a non-empty string');
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) throw new InvalidArgumentError('timeoutMs', 'must be a non-negative integer (0 waits until a push or close)');
    const reply = await this.command('BLPOP', key, (timeoutMs / 1000).toFixed(3));
    if (reply === null) return null;
    const value = (reply as readonly unknown[])[1];
    return Buffer.isBuffer(value) ? value.toString() : String(value);
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
   * Opens a dedicated connection, with these options, that reports every write under `prefixes`
   * by any client: server-assisted client-side caching in broadcast mode. `onInvalidate` is in
   * place before tracking is first turned on. After every reconnect the fence runs, then tracking
   * is turned on again, and the handle emits `armed`; invalidations sent while the socket was down
   * are lost, which its `lost` event announces.
   *
   * @throws InvalidArgumentError on a cluster (tracking is per node: one connection cannot cover a
   *   prefix) or for an empty prefix list.
   * @throws a typed error (for example PermissionError) when the server refuses to turn tracking on.
   */
  async openTracking(prefixes: readonly string[], onInvalidate: (keys: readonly string[] | null) => void, options: TrackingOptions = {}): Promise<Tracking> {
    if (this.isCluster) throw new InvalidArgumentError('tracking', 'needs a standalone server: on a cluster, tracking is per node');
    checkNames('prefixes', prefixes);
    const [tracking, wire, bind] = Tracking.create(prefixes, onInvalidate, options.onListenerError);
    const connection = new Connection(this.#named(options.name), wire);
    bind(() => connection.close({ immediate: true }));
    await connection.#open();
    return tracking;
  }

  /** Every master (one on a standalone server), each answering commands itself: `SCRIPT FLUSH`, `SCAN`. */
  masters(): readonly MasterNode[] {
    return masterNodes(this.#client, async (node, name, args) => {
      if (this.#state !== 'ready') await this.#whenReady();
      this.#stats.commands++;
      return this.#mapped(() => node.call(name, ...args));
    });
  }

  /**
   * Closes the connection; every later call fails with {@link ConnectionClosedError}. Idempotent.
   * By default pending replies are awaited (`QUIT`); `immediate` drops the socket at once, which is
   * how a blocked read (`BLPOP`, `XREADGROUP BLOCK`) is interrupted.
   */
  async close(options: { immediate?: boolean } = {}): Promise<void> {
    if (this.#state === 'closed') return;
    const wasFatal = this.#state === 'fatal';
    this.#state = 'closed';
    if (!this.#gate.settled()) this.#gate.reject(new ConnectionClosedError());
    this.#pubSub.endAll();
    if (wasFatal) return;
    if (options.immediate) {
      this.#client.disconnect(false);
      return;
    }
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect(false);
    }
  }

  /** These options, under another `CLIENT SETNAME` when one is given. */
  #named(name: string | undefined): ResolvedOptions {
    return name === undefined ? this.#options : { ...this.#options, name };
  }

  /** Sends straight to the socket (no gate), mapping a failure like every other call. */
  async #mapped<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw this.#mapError(error);
    }
  }

  /**
   * Runs the connection's own step after a fence, before the gate opens. A refusal on the first
   * connect is a configuration error and fails it; on a later one the socket is dropped so that
   * the step is retried on the reconnect schedule. Answers whether the gate may open.
   */
  async #prepare(): Promise<boolean> {
    const prepare = this.#wire.prepare;
    if (prepare === undefined) return true;
    try {
      await prepare({
        call: (name, ...args) => this.#mapped(() => this.#client.call(name, ...args)),
        subscribe: (channel) =>
          this.#mapped(async () => {
            await this.#client.subscribe(channel);
          }),
      });
      return !this.#stopped();
    } catch (error) {
      // A lost socket is retried by the reconnect its close already scheduled.
      if (this.#stopped() || error instanceof ConnectionLostError) return false;
      if (!this.#everReady) this.#fail(error instanceof EchoError ? error : new ServerError(String(error), { cause: error }));
      else this.#client.disconnect(true);
      return false;
    }
  }

  async #open(): Promise<void> {
    const opened = (async () => {
      await this.#client.connect();
      await this.#gate.promise;
    })();
    try {
      await within(opened, this.#options.connectTimeoutMs, () => new ConnectError(`no fenced connection within ${this.#options.connectTimeoutMs} ms`));
    } catch (error) {
      const typed = this.#fatal ?? (error instanceof ConnectError ? error : toConnectError(error, this.#options));
      this.#state = 'closed';
      this.#client.disconnect(false);
      throw typed;
    }
  }

  #stopped(): boolean {
    return this.#state === 'closed' || this.#state === 'fatal';
  }

  async #onReady(healing = false): Promise<void> {
    if (this.#stopped()) return;
    try {
      await claimOrVerify({
        get: async (key) => (await this.#client.call('GET', key)) as string | null,
        setNx: (key, value) => this.#client.call('SET', key, value, 'NX'),
      });
    } catch (error) {
      if (error instanceof VersionFenceError || isAuthFailure(error)) {
        this.#fail(error instanceof VersionFenceError ? error : new AuthError((error as Error).message, { cause: error }));
      }
      // Anything else (the socket dropping mid-fence, or -LOADING while the server replays its
      // AOF) must not leave an open socket behind a closed gate: drop it and let backoff retry.
      // A heal only looks again later: dropping a whole cluster for one slow slot would not help.
      else if (healing) this.#healLater();
      else if (!this.#stopped()) this.#client.disconnect(true);
      return;
    }
    if (this.#stopped() || !(await this.#prepare())) return;
    this.#stats.fences++;
    if (this.#everReady) this.#stats.reconnects++;
    this.#everReady = true;
    this.#state = 'ready';
    this.#pubSub.resubscribe();
    this.#gate.resolve(undefined);
  }

  #onClose(): void {
    // ioredis, told not to replay, silently drops the calls that were in flight when the socket
    // closed; their promises would never settle. Fail them now: they may or may not have run.
    this.#inFlight.failAll(() => new ConnectionLostError('connection lost while the call was in flight'));
    this.#wire.onLost?.();
    if (this.#state !== 'ready') return;
    this.#state = 'down';
    this.#gate = deferred<undefined>();
  }

  #onError(error: Error): void {
    this.#stats.wireErrors++;
    if (isAuthFailure(error)) this.#fail(new AuthError(error.message, { cause: error }));
  }

  #fail(error: EchoError): void {
    if (this.#state === 'closed' || this.#state === 'fatal') return;
    this.#fatal = error;
    this.#state = 'fatal';
    if (!this.#gate.settled()) this.#gate.reject(error);
    else this.#gate = rejected(error);
    this.#client.disconnect(false);
  }

  async #whenReady(): Promise<void> {
    if (this.#state === 'closed') throw new ConnectionClosedError();
    if (this.#state === 'fatal') throw this.#fatal ?? new ConnectionClosedError();
    this.#heal();
    await within(this.#gate.promise, this.#options.reconnectWaitMs, () => new ConnectionLostError(`not reconnected within ${this.#options.reconnectWaitMs} ms`));
  }

  /**
   * The gate follows the client's health, not one event: a client that reports itself ready behind
   * a closed gate is fenced again now rather than waiting for a `ready` event that may never come
   * (a Cluster client stays ready through a failover and emits none).
   */
  #heal(): void {
    if (this.#state !== 'down' || this.#client.status !== 'ready' || this.#healing !== undefined) return;
    this.#healing = this.#onReady(true).finally(() => (this.#healing = undefined));
  }

  #healLater(): void {
    setTimeout(() => this.#heal(), HEAL_RETRY_MS).unref();
  }

  /** Concurrent NOSCRIPT replies for one script share a single load. */
  #load(script: Script): Promise<void> {
    let loading = this.#loading.get(script.sha);
    if (!loading) {
      loading = this.#loadNow(script).finally(() => this.#loading.delete(script.sha));
      this.#loading.set(script.sha, loading);
    }
    return loading;
  }

  /** Loads a script where it was missing: on the server, or on every master that answers. */
  async #loadNow(script: Script): Promise<void> {
    this.#stats.scriptLoads++;
    if (!(this.#client instanceof Redis)) return loadOnMasters(this.#client, script);
    let digest: unknown;
    try {
      digest = await this.#client.call('SCRIPT', 'LOAD', script.source);
    } catch (error) {
      throw this.#mapError(error, script);
    }
    checkDigest(script, digest);
  }

  /**
   * Runs a script by its source on the node that owns its keys, which caches it there: the cluster
   * fallback for a node no load reached. Counted as a load.
   */
  async #evalSource(script: Script, keys: readonly string[], args: readonly Arg[]): Promise<unknown> {
    this.#stats.scriptLoads++;
    try {
      return await this.#client.call('EVAL', script.source, keys.length, ...keys, ...args);
    } catch (error) {
      throw this.#mapError(error, script);
    }
  }

  async #pipelineEval(calls: readonly ScriptCall[], variants: readonly Script[], indexes: readonly number[]): Promise<BatchResult[]> {
    const pipe = this.#client.pipeline();
    for (const i of indexes) {
      const call = calls[i] as ScriptCall;
      pipe.call('EVALSHA', (variants[i] as Script).sha, call.keys.length, ...call.keys, ...call.args);
    }
    this.#stats.pipelines++;
    this.#stats.commands += indexes.length;
    this.#stats.evalshaCalls += indexes.length;
    const replies = await this.#execPipeline(pipe);
    return replies.map(([error, value]) => (error ? { ok: false, error } : { ok: true, value }));
  }

  async #execPipeline(pipe: ReturnType<Client['pipeline']>): Promise<[Error | null, unknown][]> {
    let replies: [Error | null, unknown][] | null;
    try {
      replies = await pipe.exec();
    } catch (error) {
      throw this.#mapError(error);
    }
    if (replies === null) throw new ConnectionLostError('pipeline aborted');
    return replies;
  }

  #mapError(error: unknown, script?: Script): Error {
    this.#stats.wireErrors++;
    if (this.#state === 'closed') return new ConnectionClosedError(undefined, { cause: error });
    if (this.#state === 'fatal' && this.#fatal) return this.#fatal;
    const mapped = mapReplyError(error, script?.errorClasses);
    // The socket can refuse writes a moment before ioredis reports the close: hold later callers
    // at the gate now instead of letting each of them fail the same way. Not on a cluster: there a
    // fault is one slot's (its master is failing over) while the others serve, and the client's
    // own close/ready events track the whole.
    if (mapped instanceof ConnectionLostError && this.#client instanceof Redis) this.#onClose();
    return mapped;
  }
}
