import { Redis } from 'ioredis';
import { AuthError, ConnectError, ConnectionClosedError, ConnectionLostError, VersionFenceError } from '../errors/connection.js';
import { EvictionPolicyError } from '../errors/durability.js';
import { EchoError } from '../errors/echo-error.js';
import { mapReplyError } from '../errors/registry.js';
import { ServerError } from '../errors/wire.js';
import type { Script } from '../scripts/script.js';
import type { Client, Wire } from './clients.js';
import { deferred, within, type Deferred } from './deferred.js';
import { isAuthFailure, rejected, toConnectError } from './failures.js';
import { claimOrVerify } from './fence.js';
import type { CallRegistry } from './in-flight.js';
import { masterNodes } from './masters.js';
import type { PolicyWatch } from './memory-policy.js';
import type { Liveness } from './liveness.js';
import { reconnectDelay, type ResolvedOptions } from './options.js';
import type { ConnectionStats } from './stats.js';

/** Where a connection stands: fenced and usable (`ready`), waiting for a fence, or stopped for good. */
export type ConnectionState = 'connecting' | 'ready' | 'down' | 'closed' | 'fatal';

/** How soon a failed heal of the gate looks at the client again. */
const HEAL_RETRY_MS = 250;

/** What the gate needs of its connection: the socket and its settings, the counters, and the pub/sub side. */
export interface GatePort {
  readonly client: Client;
  readonly options: ResolvedOptions;
  readonly wire: Wire;
  readonly inFlight: CallRegistry;
  readonly stats: ConnectionStats;
  /** The eviction-policy check, run before every fence. */
  readonly policy: PolicyWatch;
  /** The socket's silence watch, which also knows when it last heard the server. */
  readonly liveness: Liveness | undefined;
  /** The fence has just passed on a (re)connected socket, before waiters are let through. */
  fenced(): void;
  /** The connection closed: end what it holds open for callers (subscriptions). */
  ended(): void;
}

/**
 * How long after its disconnect a cluster client's calls may still settle on their own: its node
 * sockets close within the driver's disconnect grace (`DISCONNECT_GRACE_MS`, 100 ms).
 */
const CLUSTER_END_GRACE_MS = 1_000;

/**
 * The readiness gate of one connection and the state machine behind it. No caller command reaches
 * the server on a (re)connect until the version fence has passed and the connection's own step has
 * run; a fence, auth or boot failure on a reconnect stops the connection for good and fails every
 * waiter with that error. Error replies are mapped here too, because what a failure means depends on
 * the state: after a close every failure is a {@link ConnectionClosedError}, after a fatal one it is
 * that error.
 */
export class Gate {
  readonly #port: GatePort;
  #state: ConnectionState = 'connecting';
  #gate: Deferred<undefined> = deferred<undefined>();
  #fatal: Error | undefined;
  #everReady = false;
  #healing: Promise<void> | undefined;
  /** The socket's last error: why a first connect failed (`ECONNREFUSED`), where the driver only says the connection closed. */
  #socketError: Error | undefined;
  /** Connects restarted after the driver gave the socket up on its own, since the last fence. */
  #restarts = 0;

  constructor(port: GatePort) {
    this.#port = port;
    const client = port.client;
    client.on('ready', () => void this.#onReady());
    client.on('close', () => this.#onClose());
    client.on('error', (error: Error) => this.#onError(error));
    client.on('end', () => this.#onEnd());
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Closed or fatal: the connection will never be usable again. */
  stopped(): boolean {
    return this.#state === 'closed' || this.#state === 'fatal';
  }

  /** Connects and waits for the first fence, within the connect timeout; fails typed and closed. */
  async open(): Promise<void> {
    const { client, options } = this.#port;
    const opened = (async () => {
      await client.connect();
      await this.#gate.promise;
    })();
    try {
      await within(opened, options.connectTimeoutMs, () => new ConnectError(`no fenced connection within ${options.connectTimeoutMs} ms`));
    } catch (error) {
      const typed = this.#fatal ?? (error instanceof ConnectError ? error : toConnectError(this.#socketError ?? error, options));
      this.#state = 'closed';
      client.disconnect(false);
      throw typed;
    }
  }

  /** Resolves once the connection is fenced and usable; rejects when it is stopped or does not come back in time. */
  async whenReady(): Promise<void> {
    if (this.#state === 'closed') throw new ConnectionClosedError();
    if (this.#state === 'fatal') throw this.#fatal ?? new ConnectionClosedError();
    this.#heal();
    const wait = this.#port.options.reconnectWaitMs;
    await within(this.#gate.promise, wait, () => new ConnectionLostError(`not reconnected within ${wait} ms`));
  }

  /** Closes the gate for good and the socket with it (see `Connection.close`). Idempotent. */
  async close(immediate: boolean | undefined): Promise<void> {
    if (this.#state === 'closed') return;
    const wasFatal = this.#state === 'fatal';
    this.#state = 'closed';
    if (!this.#gate.settled()) this.#gate.reject(new ConnectionClosedError());
    this.#port.ended();
    if (wasFatal) return;
    const client = this.#port.client;
    if (!immediate) {
      try {
        await client.quit();
      } catch {
        // Falls through to the disconnect below.
      }
    }
    // QUIT ends the data socket only: under Sentinel, ioredis's failover watch keeps its subscribed
    // sockets to the sentinels, reconnecting for ever once they go (ioredis #1362), and the process
    // cannot exit. The connector's disconnect closes them; on an ended client it sends nothing.
    client.disconnect(false);
    if (!(client instanceof Redis)) this.#settleLeftovers();
  }

  /**
   * A cluster client keeps calls in queues and retry timers that its disconnect does not always
   * flush (a worker's close() on a loaded machine once waited for ever on its wake read): what it
   * still holds {@link CLUSTER_END_GRACE_MS} after the disconnect fails with `ConnectionClosedError`.
   * Not at once, nor on the client's `end` (which comes as the nodes are let go, before their
   * sockets close): a call still out on a node's socket settles when that socket closes, after the
   * server has dropped it, so a blocked read failed earlier could still be served (a stream entry
   * delivered to a consumer that has closed).
   */
  #settleLeftovers(): void {
    setTimeout(() => this.#port.inFlight.failAll(() => new ConnectionClosedError()), CLUSTER_END_GRACE_MS).unref();
  }

  /** Sends straight to the socket (no gate), mapping a failure like every other call. */
  async mapped<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw this.mapError(error);
    }
  }

  /** Types a failure through the one registry, in light of the connection's state. */
  mapError(error: unknown, script?: Script): Error {
    this.#port.stats.wireErrors++;
    if (this.#state === 'closed') return new ConnectionClosedError(undefined, { cause: error });
    if (this.#state === 'fatal' && this.#fatal) return this.#fatal;
    const mapped = mapReplyError(error, script?.errorClasses);
    if (mapped instanceof ConnectionLostError) this.#port.liveness?.stamp(mapped);
    // The socket can refuse writes a moment before ioredis reports the close: hold later callers
    // at the gate now instead of letting each of them fail the same way. Not on a cluster: there a
    // fault is one slot's (its master is failing over) while the others serve, and the client's
    // own close/ready events track the whole.
    if (mapped instanceof ConnectionLostError && this.#port.client instanceof Redis) this.#onClose();
    return mapped;
  }

  async #onReady(healing = false): Promise<void> {
    if (this.stopped()) return;
    const client = this.#port.client;
    try {
      await this.#checkPolicy();
      await claimOrVerify({
        get: async (key) => (await client.call('GET', key)) as string | null,
        setNx: (key, value) => client.call('SET', key, value, 'NX'),
      });
    } catch (error) {
      // A server that may evict has perhaps already lost keys while the socket was down, so a
      // refusal on a reconnect stops the connection like a foreign fence does: every call then
      // fails with the EvictionPolicyError, rather than carrying on against a lossy server.
      if (error instanceof VersionFenceError || error instanceof EvictionPolicyError) this.#fail(error);
      else if (isAuthFailure(error)) this.#fail(new AuthError((error as Error).message, { cause: error }));
      // Anything else (the socket dropping mid-fence, or -LOADING while the server replays its
      // AOF) must not leave an open socket behind a closed gate: drop it and let backoff retry.
      // A heal only looks again later: dropping a whole cluster for one slow slot would not help.
      else if (healing) this.#healLater();
      else if (!this.stopped()) client.disconnect(true);
      return;
    }
    if (this.stopped() || !(await this.#prepare())) return;
    const stats = this.#port.stats;
    stats.fences++;
    if (this.#everReady) stats.reconnects++;
    // On the monotonic clock (see ConnectionStats.readyAt): a lease bound built on it survives a wall-clock step.
    stats.readyAt = performance.timeOrigin + performance.now();
    this.#everReady = true;
    this.#restarts = 0;
    this.#state = 'ready';
    this.#port.fenced();
    this.#gate.resolve(undefined);
  }

  /** Reads the eviction policy of every master before the fence is claimed (see {@link PolicyWatch}). */
  async #checkPolicy(): Promise<void> {
    await this.#port.policy.check(masterNodes(this.#port.client, (node, name, args) => this.mapped(() => node.call(name, ...args))));
  }

  /**
   * Runs the connection's own step after a fence, before the gate opens. A refusal on the first
   * connect is a configuration error and fails it; on a later one the socket is dropped so that
   * the step is retried on the reconnect schedule. Answers whether the gate may open.
   */
  async #prepare(): Promise<boolean> {
    const { client, wire } = this.#port;
    const prepare = wire.prepare;
    if (prepare === undefined) return true;
    try {
      await prepare({
        call: (name, ...args) => this.mapped(() => client.call(name, ...args)),
        subscribe: (channel) =>
          this.mapped(async () => {
            await client.subscribe(channel);
          }),
      });
      return !this.stopped();
    } catch (error) {
      // A lost socket is retried by the reconnect its close already scheduled.
      if (this.stopped() || error instanceof ConnectionLostError) return false;
      if (!this.#everReady) this.#fail(error instanceof EchoError ? error : new ServerError(String(error), { cause: error }));
      else client.disconnect(true);
      return false;
    }
  }

  #onClose(): void {
    // ioredis, told not to replay, silently drops the calls that were in flight when the socket
    // closed; their promises would never settle. Fail them now: they may or may not have run. A
    // cluster client sends its calls again itself (see TrackedCluster); its registry serves close().
    const liveness = this.#port.liveness;
    if (this.#port.client instanceof Redis) {
      this.#port.inFlight.failAll(() => {
        const lost = new ConnectionLostError('connection lost while the call was in flight');
        return liveness ? liveness.stamp(lost) : lost;
      });
    }
    this.#port.wire.onLost?.();
    if (this.#state !== 'ready') return;
    this.#state = 'down';
    this.#gate = deferred<undefined>();
  }

  /**
   * ioredis gives a socket up for good (`end`) not only when told to: when its connector fails
   * outright it sets `end` and schedules no retry. Under Sentinel that happens in a failover: the
   * failover detector of the lost socket hears `+switch-master` while the reconnect is still asking
   * the sentinels, aborts that connect ("Connection is closed.") and the client stays down, every
   * caller timing out at the gate. A connection nobody closed must not stay down, so it connects
   * again on the reconnect schedule. Only after a first fence: a first connect that fails is
   * `open()`'s to report. Not on a cluster, whose client retries through its own strategy.
   */
  #onEnd(): void {
    const client = this.#port.client;
    if (this.stopped() || !this.#everReady || !(client instanceof Redis)) return;
    this.#onClose();
    setTimeout(() => {
      if (this.stopped() || client.status !== 'end') return;
      // A failed attempt ends the client again, and so schedules the next one.
      client.connect().catch(() => undefined);
    }, reconnectDelay(++this.#restarts)).unref();
  }

  #onError(error: Error): void {
    this.#port.stats.wireErrors++;
    this.#socketError = error;
    if (isAuthFailure(error)) this.#fail(new AuthError(error.message, { cause: error }));
  }

  #fail(error: EchoError): void {
    if (this.stopped()) return;
    this.#fatal = error;
    this.#state = 'fatal';
    if (!this.#gate.settled()) this.#gate.reject(error);
    else this.#gate = rejected(error);
    this.#port.client.disconnect(false);
  }

  /**
   * The gate follows the client's health, not one event: a client that reports itself ready behind
   * a closed gate is fenced again now rather than waiting for a `ready` event that may never come
   * (a Cluster client stays ready through a failover and emits none).
   */
  #heal(): void {
    if (this.#state !== 'down' || this.#port.client.status !== 'ready' || this.#healing !== undefined) return;
    this.#healing = this.#onReady(true).finally(() => (this.#healing = undefined));
  }

  #healLater(): void {
    setTimeout(() => this.#heal(), HEAL_RETRY_MS).unref();
  }
}
