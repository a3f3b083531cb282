import type { Cluster, Redis } from 'ioredis';
import { ConnectionClosedError, ConnectionLostError, Resp3RequiredError } from '../errors/connection.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { ChannelRegistry } from './channels.js';
import { ClusterSubscriber } from './cluster-subscriber.js';
import type { ResolvedOptions } from './options.js';
import { createSubscription, type AnySubscribeOptions, type Payload, type Subscription, type SubscriptionSink } from './subscription.js';

/** What the pub/sub side needs of its connection: the socket, the gate, the error mapping, the counter. */
export interface PubSubPort {
  readonly client: Redis | Cluster;
  readonly options: ResolvedOptions;
  /** Resolves once the connection is fenced and usable; rejects when it never will be. */
  ready(): Promise<void>;
  isReady(): boolean;
  /** Closed or fatal: the connection will never be usable again. */
  stopped(): boolean;
  mapError(error: unknown): Error;
  /** Counts one command sent. */
  sent(): void;
}

/** Checks a list of names (channels, prefixes) at the boundary, before any I/O. */
export function checkNames(what: string, names: readonly string[]): void {
  if (!Array.isArray(names) || names.length === 0) throw new InvalidArgumentError(what, 'must be a non-empty array');
  for (const name of names) if (typeof name !== 'string' || name === '') throw new InvalidArgumentError(what, 'every entry must be a non-empty string');
}

/**
 * The subscriptions of one connection (protocol.md §12): a set of channels kept across reconnects
 * and re-issued once the fence has passed, each message routed to the subscriptions holding its
 * channel. On a standalone server (or Sentinel's primary) the channels ride the connection's own
 * socket and are re-issued after its fence; on a cluster they ride one socket of their own, which
 * {@link ClusterSubscriber} reopens and re-issues them on.
 */
export class PubSub {
  readonly #port: PubSubPort;
  readonly #channels = new ChannelRegistry();
  readonly #cluster: ClusterSubscriber | undefined;

  constructor(port: PubSubPort) {
    this.#port = port;
    const client = port.client;
    this.#cluster = client.isCluster
      ? new ClusterSubscriber({
          cluster: client as Cluster,
          options: port.options,
          ready: () => port.ready(),
          stopped: () => port.stopped(),
          deliver: (channel, payload) => this.deliver(channel, payload),
          reconnected: (socket) => this.#reissue(socket),
        })
      : undefined;
  }

  async subscribe(channels: readonly string[], options: AnySubscribeOptions): Promise<Subscription<Payload>> {
    checkNames('channels', channels);
    const port = this.#port;
    if (!port.isReady()) await port.ready();
    // Under RESP2 a subscribed socket takes no other command, so the fence could not run on it.
    if (!port.client.isCluster && (port.client as Redis).condition?.protocol !== 3) throw new Resp3RequiredError();
    const [subscription, sink] = createSubscription<Payload>(channels, options.buffers === true, (s) => this.#leave(s), options.onListenerError);
    if (options.onMessage) subscription.on('message', options.onMessage as (message: unknown) => void);
    // Held before the SUBSCRIBE goes out: a message can follow its confirmation in one read. @sends SUBSCRIBE
    this.#channels.hold(sink);
    port.sent();
    try {
      const socket = this.#cluster ? await this.#cluster.socket() : port.client;
      await socket.subscribe(...sink.channels);
    } catch (error) {
      this.#channels.release(sink);
      sink.end();
      throw port.mapError(error);
    }
    sink.subscribed();
    return subscription;
  }

  /** Hands one message off the socket to the subscriptions holding its channel. */
  deliver(channel: string, payload: unknown): void {
    this.#channels.deliver(channel, payload);
  }

  /**
   * Re-issues every kept channel (the fence has just passed); each holder hears `subscribed`. A
   * cluster's channels do not ride the fenced client: its subscriber socket re-issues them itself.
   */
  resubscribe(): void {
    if (this.#cluster === undefined) this.#reissue(this.#port.client as Redis);
  }

  /** Ends every subscription (the connection closed). */
  endAll(): void {
    this.#cluster?.close();
    this.#channels.endAll();
  }

  #reissue(socket: Redis): void {
    if (this.#channels.size === 0) return;
    const channels = this.#channels.channels();
    this.#port.sent();
    socket.subscribe(...channels).then(
      () => {
        for (const sink of this.#channels.holders(channels)) sink.subscribed();
      },
      (error: unknown) => {
        const mapped = this.#port.mapError(error);
        // A drop during the re-subscribe leads to another reconnect, which tries again.
        if (mapped instanceof ConnectionLostError || mapped instanceof ConnectionClosedError) return;
        for (const sink of this.#channels.holders(channels)) sink.error(mapped);
      },
    );
  }

  async #leave(sink: SubscriptionSink): Promise<void> {
    const orphaned = this.#channels.release(sink);
    // Off the socket now, or, while it is down, simply not re-issued. @sends UNSUBSCRIBE
    const socket = this.#cluster ? this.#cluster.current() : this.#port.isReady() ? this.#port.client : undefined;
    if (orphaned.length === 0 || socket === undefined) return;
    this.#port.sent();
    try {
      await socket.unsubscribe(...orphaned);
    } catch (error) {
      throw this.#port.mapError(error);
    }
  }
}
