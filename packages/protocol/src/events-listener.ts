import type { Connection } from './connector/connection.js';
import type { Subscription } from './connector/subscription.js';
import { EVENT_NAMES, parseEvent, type EventName, type LifecycleEvent, type LifecycleEventFields } from './events.js';
import { queueKeys } from './keys/index.js';
import { TypedEmitter, type Listener, type ListenerErrorHandler } from './typed-emitter.js';

/** A lifecycle event whose name is `K`, with the fields that event carries typed (see {@link LifecycleEventFields}). */
export type LifecycleEventOf<K extends EventName | 'unknown'> = LifecycleEvent & { readonly event: K; readonly fields: LifecycleEventFields[K] };

/** One raw message off the events channel, with the name read from it. */
export interface RawLifecycleMessage {
  readonly name: EventName | 'unknown';
  readonly payload: string;
}

/**
 * What an {@link EventsListener} reports: each event name of queue.md §12 (and `unknown` for a
 * parsed event whose name is outside that set) with its parsed event; `*` for every parsed event;
 * `raw` for every message, parsed or not.
 */
export type LifecycleEventMap = { readonly [K in EventName | 'unknown']: LifecycleEventOf<K> } & {
  readonly '*': LifecycleEvent;
  readonly raw: RawLifecycleMessage;
};

/** Called with every message on the channel: the event name (or `unknown`) and the raw JSON. */
export type EventSubscriber = (eventName: EventName | 'unknown', rawPayload: string) => void;

/** Called with every message that parses as a lifecycle event. */
export type EventListener = (event: LifecycleEvent) => void;

/** How {@link EventsListener.open} opens its connection. */
export interface ListenOptions {
  /** `CLIENT SETNAME` for the dedicated connection, so it can be found in `CLIENT LIST`. */
  readonly connectionName?: string;
  /** Called with errors the listener survives: a throwing listener, a refused re-subscribe. Default: ignore. */
  readonly onError?: (error: unknown) => void;
}

/** Counters since open. */
export interface EventsListenerStats {
  /** Messages received on the channel. */
  readonly messages: number;
  /** Subscriptions confirmed, the first one included; one more after every reconnect. */
  readonly subscribes: number;
}

const KNOWN = new Set<string>(EVENT_NAMES);
// The fallback of bus.md §1.3, for a payload that is not the flat object parseEvent expects.
const EVENT_FIELD = /"event"\s*:\s*"([^"]+)"/;

/**
 * The event name of a raw message, or `unknown`. Only ever one of the known names: a name that
 * arrives off the wire never becomes a new value of the type.
 */
export function eventNameOf(rawPayload: string): EventName | 'unknown' {
  const parsed = parseEvent(rawPayload);
  if (parsed !== undefined) return parsed.event;
  const name = EVENT_FIELD.exec(rawPayload)?.[1];
  return name !== undefined && KNOWN.has(name) ? (name as EventName) : 'unknown';
}

/** What a subclass's constructor gets from {@link EventsListener.attach}. */
export interface EventsListenerParts {
  readonly queue: string;
  readonly channel: string;
  readonly onError: ListenerErrorHandler | undefined;
}

/**
 * A queue's lifecycle events (`emq:{q}:events`, bus.md §1.3), on a dedicated RESP3 connection that
 * subscribes once, with typed listeners: `on('completed', e => …)` gets completed events only,
 * `on('*', …)` every parsed event, `subscribe((name, raw) => …)` every message.
 *
 * Delivery is at most once: an event published while nobody is subscribed, or between a socket drop
 * and the re-subscribe, is gone. The connector re-issues the subscription after every reconnect,
 * once its version fence has passed, with no help from the caller.
 */
export class EventsListener extends TypedEmitter<LifecycleEventMap> {
  /** The queue namespace. */
  readonly queue: string;
  /** `emq:{q}:events`. */
  readonly channel: string;
  #conn: Connection | undefined;
  #subscription: Subscription | undefined;
  #messages = 0;
  #closed = false;

  protected constructor(parts: EventsListenerParts) {
    super(parts.onError);
    this.queue = parts.queue;
    this.channel = parts.channel;
  }

  /**
   * Opens a connection duplicated from `conn` and subscribes to `queue`'s channel. Resolves once the
   * subscription is confirmed, so an event published after that is received.
   *
   * @throws InvalidNameError for a bad queue name.
   * @throws Resp3RequiredError when the server negotiated RESP2.
   */
  static open(conn: Connection, queue: string, options: ListenOptions = {}): Promise<EventsListener> {
    const onError = options.onError ?? (() => undefined);
    return EventsListener.attach(conn, queue, { ...options, onError }, (parts) => new EventsListener(parts));
  }

  /**
   * Opens the connection and subscription for a listener that `make` builds (a subclass adding its
   * own reads, such as a queue's `waitFor`). Without `onError`, a throwing listener is rethrown on a
   * later tick.
   */
  protected static async attach<L extends EventsListener>(conn: Connection, queue: string, options: ListenOptions, make: (parts: EventsListenerParts) => L): Promise<L> {
    const channel = queueKeys(queue).events;
    const onError = options.onError === undefined ? undefined : (error: unknown) => options.onError?.(error);
    const listener = make({ queue, channel, onError });
    const own = await conn.duplicate(options.connectionName);
    try {
      const subscription = await own.subscribe([channel], { onMessage: (m) => listener.#deliver(m.payload), ...(onError ? { onListenerError: onError } : {}) });
      if (onError) subscription.on('error', onError);
      listener.#subscription = subscription;
    } catch (error) {
      await own.close({ immediate: true });
      throw error;
    }
    listener.#conn = own;
    return listener;
  }

  /**
   * Adds a listener for parsed events: of one name (`on('failed', …)`), every one (`on('*', …)` or
   * `on(listener)`), or every raw message (`on('raw', …)`). Answers a function that removes it.
   */
  override on<K extends keyof LifecycleEventMap>(event: K, listener: Listener<LifecycleEventMap[K]>): () => void;
  override on(listener: EventListener): () => void;
  override on<K extends keyof LifecycleEventMap>(event: K | EventListener, listener?: Listener<LifecycleEventMap[K]>): () => void {
    if (typeof event === 'function') return super.on('*', event);
    return super.on(event, listener as Listener<LifecycleEventMap[K]>);
  }

  /**
   * Adds a subscriber for every message, as `(eventName, rawPayload)`; a name outside the known set
   * arrives as `unknown`. Answers a function that removes it.
   */
  subscribe(subscriber: EventSubscriber): () => void {
    return this.on('raw', ({ name, payload }) => subscriber(name, payload));
  }

  /**
   * Resolves with the next parsed event that `match` accepts (default: any), or rejects after
   * `timeoutMs`. Only events received after the call count.
   */
  next(match: (event: LifecycleEvent) => boolean = () => true, timeoutMs = 30_000): Promise<LifecycleEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching event on ${this.channel} within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on('*', (event) => {
        if (!match(event)) return;
        clearTimeout(timer);
        off();
        resolve(event);
      });
    });
  }

  /** A snapshot of the counters. */
  stats(): EventsListenerStats {
    return { messages: this.#messages, subscribes: this.#subscription?.confirmations ?? 0 };
  }

  /** True once {@link close} has been called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Drops every listener and closes the connection. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.removeAllListeners();
    await this.#conn?.close();
  }

  #deliver(message: string): void {
    this.#messages++;
    if (this.listenerCount('raw') > 0) this.emit('raw', { name: eventNameOf(message), payload: message });
    const event = parseEvent(message);
    if (event === undefined) return;
    this.emit('*', event);
    this.emit(event.event, event);
  }
}
