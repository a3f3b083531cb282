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
import type { Script } from '../scripts/script.js';
import { strictVariant } from '../scripts/strict.js';
import { checkCall, type Arg } from './call-shape.js';
import { deferred, within, type Deferred } from './deferred.js';
import { isAuthFailure, isNoScript, rejected, toConnectError } from './failures.js';
import { claimOrVerify } from './fence.js';
import { checkDigest, loadOnMasters } from './script-load.js';
import { createCluster, createRedis } from './clients.js';
import { reconnectDelay, resolveOptions, type ConnectOptions, type ResolvedOptions } from './options.js';
import { emptyStats, type ConnectionStats } from './stats.js';

type Client = Redis | Cluster;

/** One script call in a batch. */
export interface ScriptCall {
  readonly script: Script;
  readonly keys: readonly string[];
  readonly args: readonly Arg[];
}

/** The outcome of one member of a batch; members fail independently. */
export type BatchResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error };

/** The ioredis method that fails queued calls; private in its types, stable in its code. */
interface Flushable {
  flushQueue(error: Error, options: { offlineQueue: boolean; commandQueue: boolean }): void;
}

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
  readonly options: ResolvedOptions;
  readonly #client: Client;
  readonly #stats = emptyStats();
  #state: State = 'connecting';
  #gate: Deferred<undefined> = deferred<undefined>();
  #fatal: Error | undefined;
  #everReady = false;
  readonly #loading = new Map<string, Promise<void>>();
  readonly #channels = new Set<string>();
  #healing: Promise<void> | undefined;

  private constructor(options: ResolvedOptions) {
    this.options = options;
    const retry = (attempt: number): number | null => (this.#stopped() ? null : reconnectDelay(attempt));
    this.#client = options.cluster ? createCluster(options, retry) : createRedis(options, retry);
    this.#client.on('ready', () => void this.#onReady());
    this.#client.on('close', () => this.#onClose());
    this.#client.on('error', (error: Error) => this.#onError(error));
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
    return this.options.cluster !== undefined;
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
  duplicate(name?: string): Promise<Connection> {
    const o = this.options;
    return Connection.connect({
      host: o.host,
      port: o.port,
      db: o.db,
      connectTimeoutMs: o.connectTimeoutMs,
      reconnectWaitMs: o.reconnectWaitMs,
      strictKeys: o.strictKeys,
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      ...(o.cluster === undefined ? {} : { cluster: o.cluster }),
      ...(name === undefined ? (o.name === undefined ? {} : { name: o.name }) : { name }),
    });
  }

  /**
   * Runs one transition: EVALSHA first; on NOSCRIPT, `SCRIPT LOAD` once, check the digest, resend
   * once. The resent call's errors map exactly like a first attempt's, so a cold script cache is
   * invisible to the caller.
   */
  async run(script: Script, keys: readonly string[], args: readonly Arg[] = []): Promise<unknown> {
    checkCall(script, keys, args);
    if (this.#state !== 'ready') await this.#whenReady();
    const s = this.options.strictKeys ? strictVariant(script) : script;
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
    const variants = calls.map((c) => (this.options.strictKeys ? strictVariant(c.script) : c.script));
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

  /**
   * Subscribes this connection to pub/sub channels (use a dedicated connection: see
   * {@link duplicate}). The set is kept and re-issued after every reconnect, once the fence has
   * passed. Messages arrive through {@link onMessage}. At most once: anything published while the
   * socket was down is gone.
   */
  async subscribe(...channels: string[]): Promise<void> {
    if (this.#state !== 'ready') await this.#whenReady();
    for (const channel of channels) this.#channels.add(channel);
    this.#stats.commands++;
    try {
      await this.#client.subscribe(...channels);
    } catch (error) {
      throw this.#mapError(error);
    }
  }

  /** Leaves channels; they are no longer re-issued after a reconnect. */
  async unsubscribe(...channels: string[]): Promise<void> {
    for (const channel of channels) this.#channels.delete(channel);
    if (this.#state !== 'ready') return;
    await this.#client.unsubscribe(...channels).catch((error: unknown) => {
      throw this.#mapError(error);
    });
  }

  /** Calls `listener` for every pub/sub message this connection receives; answers a remover. */
  onMessage(listener: (channel: string, message: string) => void): () => void {
    this.#client.on('message', listener);
    return () => this.#client.off('message', listener);
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
   * The underlying ioredis client, for what the connector does not wrap (subscriptions, blocking
   * reads). Commands sent through it bypass the fence gate; use it only after `connect` resolved.
   */
  get client(): Client {
    return this.#client;
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

  async #open(): Promise<void> {
    const opened = (async () => {
      await this.#client.connect();
      await this.#gate.promise;
    })();
    try {
      await within(opened, this.options.connectTimeoutMs, () => new ConnectError(`no fenced connection within ${this.options.connectTimeoutMs} ms`));
    } catch (error) {
      const typed = this.#fatal ?? (error instanceof ConnectError ? error : toConnectError(error, this.options));
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
    if (this.#stopped()) return;
    this.#stats.fences++;
    if (this.#everReady) this.#stats.reconnects++;
    this.#everReady = true;
    this.#state = 'ready';
    if (this.#channels.size > 0) {
      this.#client.subscribe(...this.#channels).catch(() => {
        // A drop during the re-subscribe leads to another reconnect, which tries again.
      });
    }
    this.#gate.resolve(undefined);
  }

  #onClose(): void {
    // ioredis, told not to replay, silently drops the calls that were in flight when the socket
    // closed; their promises would never settle. Fail them now: they may or may not have run.
    if (this.#client instanceof Redis) {
      (this.#client as unknown as Flushable).flushQueue(new ConnectionLostError('connection lost while the call was in flight'), {
        offlineQueue: true,
        commandQueue: true,
      });
    }
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
    await within(this.#gate.promise, this.options.reconnectWaitMs, () => new ConnectionLostError(`not reconnected within ${this.options.reconnectWaitMs} ms`));
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
