import { Redis, type Cluster } from 'ioredis';
import { ConnectionClosedError, ConnectionLostError } from '../errors/connection.js';
import { deferred, within, type Deferred } from './deferred.js';
import { DISCONNECT_GRACE_MS } from './clients.js';
import { reconnectDelay, type ResolvedOptions } from './options.js';

/** What the cluster subscriber needs of its connection. */
export interface ClusterSubscriberPort {
  readonly cluster: Cluster;
  readonly options: ResolvedOptions;
  /** Resolves once the cluster connection is fenced; rejects when it never will be. */
  ready(): Promise<void>;
  /** Closed or fatal: no socket may be opened any more. */
  stopped(): boolean;
  /** One message off the subscriber socket. */
  deliver(channel: string, payload: unknown): void;
  /** A replacement socket is open and subscribed to nothing: re-issue every kept channel on it. */
  reconnected(socket: Redis): void;
}

/**
 * The one pub/sub socket of a cluster connection. Classic pub/sub is broadcast over the cluster
 * bus, so any master will do; the connector opens it itself, to one master, and when it drops
 * picks a master again (the old one may be gone) and re-issues the channels there, on the
 * reconnect schedule. The driver's own cluster subscriber is never used: it re-selects and
 * re-subscribes by itself, and two owners of one subscription race each other into a second
 * socket or a lost channel.
 */
export class ClusterSubscriber {
  readonly #port: ClusterSubscriberPort;
  #socket: Redis | undefined;
  #open: Deferred<Redis> = deferred<Redis>();
  #opening = false;
  #everOpen = false;
  #attempt = 0;
  #turn = Math.floor(Math.random() * 1024);
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(port: ClusterSubscriberPort) {
    this.#port = port;
  }

  /** The socket once it is open (opening it on first use), waiting through a reconnect. */
  async socket(): Promise<Redis> {
    if (this.#closed) throw new ConnectionClosedError();
    if (this.#socket?.status === 'ready' && this.#open.settled()) return this.#socket;
    if (!this.#opening && this.#retry === undefined) void this.#connect();
    const wait = this.#port.options.reconnectWaitMs;
    return within(this.#open.promise, wait, () => new ConnectionLostError(`no subscriber socket within ${wait} ms`));
  }

  /** The socket if it is open now; a channel left while it is down is simply not re-issued. */
  current(): Redis | undefined {
    return this.#socket?.status === 'ready' && this.#open.settled() ? this.#socket : undefined;
  }

  /** Drops the socket for good; waiters fail with {@link ConnectionClosedError}. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.disconnect(false);
    if (!this.#open.settled()) this.#open.reject(new ConnectionClosedError());
  }

  async #connect(): Promise<void> {
    this.#opening = true;
    let socket: Redis | undefined;
    try {
      await this.#port.ready();
      if (this.#gone()) return;
      socket = this.#create();
      this.#socket = socket;
      await socket.connect();
    } catch {
      if (socket !== undefined && this.#socket === socket) this.#socket = undefined;
      socket?.disconnect(false);
      this.#opening = false;
      this.#later();
      return;
    }
    this.#opening = false;
    if (this.#gone() || this.#socket !== socket) {
      socket.disconnect(false);
      return;
    }
    this.#attempt = 0;
    const reopened = this.#everOpen;
    this.#everOpen = true;
    // Re-issued before waiters are let through, so the channels go out in one SUBSCRIBE.
    if (reopened) this.#port.reconnected(socket);
    this.#open.resolve(socket);
  }

  /** A socket to the next master in turn, which never reconnects by itself: a drop picks again. */
  #create(): Redis {
    const o = this.#port.options;
    const masters = this.#port.cluster.nodes('master');
    const fallback = o.cluster?.[0];
    const node = masters.length > 0 ? masters[this.#turn++ % masters.length]?.options : fallback;
    const socket = new Redis({
      host: node?.host ?? fallback?.host ?? '127.0.0.1',
      port: node?.port ?? fallback?.port ?? 6379,
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      ...(o.name === undefined ? {} : { connectionName: o.name }),
      lazyConnect: true,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      autoResubscribe: false,
      enableReadyCheck: false,
      disableClientInfo: true,
      maxRetriesPerRequest: null,
      connectTimeout: o.connectTimeoutMs,
      disconnectTimeout: DISCONNECT_GRACE_MS,
      retryStrategy: () => null,
    });
    // A failure shows as the close that follows it; the socket's own errors need no listener.
    socket.on('error', () => undefined);
    socket.on('messageBuffer', (channel: Buffer | string, payload: unknown) => {
      if (this.#socket === socket) this.#port.deliver(typeof channel === 'string' ? channel : channel.toString(), payload);
    });
    socket.once('close', () => this.#lost(socket));
    return socket;
  }

  #lost(socket: Redis): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    if (this.#open.settled()) this.#open = deferred<Redis>();
    if (this.#opening) return;
    this.#later();
  }

  #later(): void {
    if (this.#gone() || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#connect();
    }, reconnectDelay(++this.#attempt));
    this.#retry.unref();
  }

  #gone(): boolean {
    if (!this.#closed && !this.#port.stopped()) return false;
    if (!this.#open.settled()) this.#open.reject(new ConnectionClosedError());
    return true;
  }
}
