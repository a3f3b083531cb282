import { TypedEmitter, type Listener, type ListenerErrorHandler } from '../typed-emitter.js';

/** A pub/sub payload: text (UTF-8 decoded) by default, the exact bytes with `buffers: true`. */
export type Payload = string | Buffer;

/** One pub/sub message. */
export interface PubSubMessage<P extends Payload = string> {
  readonly channel: string;
  readonly payload: P;
}

/** What a {@link Subscription} reports. */
export interface SubscriptionEvents<P extends Payload = string> {
  /** A message on one of the subscription's channels. */
  readonly message: PubSubMessage<P>;
  /**
   * The server confirmed the subscription: once when it opens, then once after every reconnect,
   * when the connector has re-issued it behind the version fence. The payload counts them.
   */
  readonly subscribed: number;
  /** Re-issuing the subscription after a reconnect was refused (a lost socket is not reported: it retries). */
  readonly error: Error;
}

/** How {@link Connection.subscribe} delivers. */
export interface SubscribeOptions<B extends boolean = false> {
  /** Deliver payloads as `Buffer`s (opaque bytes) instead of UTF-8 text. */
  readonly buffers?: B;
  /**
   * Added as a `message` listener before the subscription is sent, so that no message the server
   * delivers after confirming it can arrive before a listener is in place.
   */
  readonly onMessage?: Listener<PubSubMessage<B extends true ? Buffer : string>>;
  /** Called with what a listener threw; without it, a throw is rethrown on a later tick. */
  readonly onListenerError?: ListenerErrorHandler;
}

/** Either form of {@link SubscribeOptions}. */
export type AnySubscribeOptions = SubscribeOptions | (SubscribeOptions<true> & { readonly buffers: true });

/** The connector's side of one subscription: where it delivers, and what it calls to leave. */
export interface SubscriptionSink {
  readonly channels: readonly string[];
  message(channel: string, payload: Buffer): void;
  subscribed(): void;
  error(error: Error): void;
  /** The connection closed: the subscription is gone, with no round trip. */
  end(): void;
}

/**
 * Creates a subscription and the sink its connector delivers to. The connector's constructor, set
 * once by the class's static block (it reaches the subscription's private state); not exported from
 * the package: callers get subscriptions from `Connection.subscribe`.
 */
export let createSubscription: <P extends Payload>(
  channels: readonly string[],
  buffers: boolean,
  leave: (sink: SubscriptionSink) => Promise<void>,
  onListenerError?: ListenerErrorHandler,
) => [Subscription<P>, SubscriptionSink];

/**
 * A set of channels subscribed on one connection, with its own typed listeners. The connector keeps
 * it across reconnects (at most once: a message published while the socket was down is gone) until
 * {@link unsubscribe} or the connection's close.
 */
export class Subscription<P extends Payload = string> extends TypedEmitter<SubscriptionEvents<P>> {
  /** The channels, in the order given. */
  readonly channels: readonly string[];
  /** Whether payloads arrive as `Buffer`s. */
  readonly buffers: boolean;
  readonly #leave: () => Promise<void>;
  #confirmations = 0;
  #left = false;

  private constructor(channels: readonly string[], buffers: boolean, leave: () => Promise<void>, onListenerError?: ListenerErrorHandler) {
    super(onListenerError);
    this.channels = Object.freeze([...channels]);
    this.buffers = buffers;
    this.#leave = leave;
  }

  static {
    createSubscription = <P extends Payload>(channels: readonly string[], buffers: boolean, leave: (sink: SubscriptionSink) => Promise<void>, onListenerError?: ListenerErrorHandler): [Subscription<P>, SubscriptionSink] => {
      const subscription = new Subscription<P>(channels, buffers, () => leave(sink), onListenerError);
      const sink: SubscriptionSink = {
        channels: subscription.channels,
        message: (channel, payload) => {
          if (subscription.#left) return;
          const decoded = (buffers ? payload : payload.toString()) as P;
          subscription.emit('message', { channel, payload: decoded });
        },
        subscribed: () => {
          if (!subscription.#left) subscription.emit('subscribed', ++subscription.#confirmations);
        },
        error: (error) => {
          if (!subscription.#left) subscription.emit('error', error);
        },
        end: () => {
          subscription.#left = true;
          subscription.removeAllListeners();
        },
      };
      return [subscription, sink];
    };
  }

  /** How many times the server confirmed the subscription: 1 once open, one more per reconnect. */
  get confirmations(): number {
    return this.#confirmations;
  }

  /** True until {@link unsubscribe} (or the connection's close). */
  get active(): boolean {
    return !this.#left;
  }

  /**
   * Leaves the channels (a channel another subscription on the connection still holds stays
   * subscribed) and drops every listener. Idempotent.
   */
  async unsubscribe(): Promise<void> {
    if (this.#left) return;
    this.#left = true;
    this.removeAllListeners();
    await this.#leave();
  }
}
