import { Redis } from 'ioredis';
import { EVENT_NAMES, parseEvent, queueKeys, type Connection, type EventName, type LifecycleEvent } from '@echo/protocol';
import { Resp3RequiredError } from './errors.js';

/** Called with every message on the channel: the event name (or `unknown`) and the raw JSON. */
export type EventSubscriber = (eventName: EventName | 'unknown', rawPayload: string) => void;

/** Called with every message that parses as a lifecycle event. */
export type EventListener = (event: LifecycleEvent) => void;

/** How {@link listen} opens its connection. */
export interface ListenOptions {
  /** `CLIENT SETNAME` for the dedicated connection, so it can be found in `CLIENT LIST`. */
  readonly connectionName?: string;
  /** Called with errors the listener survives: a throwing subscriber, a failed re-subscribe. Default: ignore. */
  readonly onError?: (error: unknown) => void;
}

/** Counters since open. */
export interface EventsListenerStats {
  /** Messages received on the channel. */
  readonly messages: number;
  /** Subscriptions issued, the first one included; one more after every reconnect. */
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

/**
 * A queue's lifecycle events (bus.md §1.3), on a dedicated RESP3 connection that subscribes once.
 * Delivery is at most once: an event published while nobody is subscribed, or between a socket
 * drop and the re-subscribe, is gone. The subscription is re-issued after every reconnect, once the
 * connection's version fence has passed, with no help from the caller.
 */
export class EventsListener {
  /** The queue namespace. */
  readonly queue: string;
  /** `emq:{q}:events`. */
  readonly channel: string;
  readonly #conn: Connection;
  readonly #subscribers = new Set<EventSubscriber>();
  readonly #listeners = new Set<EventListener>();
  readonly #onError: (error: unknown) => void;
  #closed = false;
  #stats = { messages: 0, subscribes: 0 };

  private constructor(conn: Connection, queue: string, channel: string, onError: (error: unknown) => void) {
    this.#conn = conn;
    this.queue = queue;
    this.channel = channel;
    this.#onError = onError;
    conn.client.on('message', (from: string, message: string) => {
      if (from === channel) this.#deliver(message);
    });
  }

  /**
   * Opens a connection duplicated from `conn` and subscribes to `queue`'s channel. Resolves once the
   * subscription is confirmed, so an event published after that is received.
   *
   * @throws InvalidNameError for a bad queue name.
   * @throws Resp3RequiredError when the server negotiated RESP2.
   */
  static async open(conn: Connection, queue: string, options: ListenOptions = {}): Promise<EventsListener> {
    const channel = queueKeys(queue).events;
    const own = await conn.duplicate(options.connectionName);
    const listener = new EventsListener(own, queue, channel, options.onError ?? (() => undefined));
    try {
      const client = own.client;
      if (client instanceof Redis) {
        if (client.condition?.protocol !== 3) throw new Resp3RequiredError();
        // ioredis would re-subscribe by itself, but from inside its handshake, before our fence has
        // run; we re-issue the subscription through the fenced gate instead.
        client.options.autoResubscribe = false;
        client.on('ready', () => void listener.#resubscribe());
      }
      // A cluster client keeps its own subscriber connection and re-subscribes it on its own.
      await listener.#subscribe();
    } catch (error) {
      await own.close({ immediate: true });
      throw error;
    }
    return listener;
  }

  /**
   * Adds a subscriber for every message, as `(eventName, rawPayload)`; a name outside the known set
   * arrives as `unknown`. Answers a function that removes it.
   */
  subscribe(subscriber: EventSubscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /**
   * Adds a listener for parsed events; a message that is not a flat JSON object of strings with an
   * `event` and a `job` reaches subscribers only. Answers a function that removes it.
   */
  on(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
      const off = this.on((event) => {
        if (!match(event)) return;
        clearTimeout(timer);
        off();
        resolve(event);
      });
    });
  }

  /** A snapshot of the counters. */
  stats(): EventsListenerStats {
    return { ...this.#stats };
  }

  /** Drops every subscriber and closes the connection. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#subscribers.clear();
    this.#listeners.clear();
    await this.#conn.close();
  }

  async #subscribe(): Promise<void> {
    // Through the connector's gate: after a reconnect this waits for the fence to pass first.
    await this.#conn.command('SUBSCRIBE', this.channel);
    this.#stats.subscribes++;
  }

  async #resubscribe(): Promise<void> {
    // After close() the command fails at once with ConnectionClosedError, which is not reported.
    try {
      await this.#subscribe();
    } catch (error) {
      // The socket dropped again before the subscription went out; the next 'ready' retries.
      if (!this.#closed) this.#onError(error);
    }
  }

  #deliver(message: string): void {
    this.#stats.messages++;
    if (this.#subscribers.size > 0) {
      const name = eventNameOf(message);
      for (const subscriber of this.#subscribers) this.#call(() => subscriber(name, message));
    }
    if (this.#listeners.size > 0) {
      const event = parseEvent(message);
      if (event !== undefined) for (const listener of this.#listeners) this.#call(() => listener(event));
    }
  }

  /** A throwing subscriber must not starve the others, nor throw into the client's reply parser. */
  #call(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#onError(error);
    }
  }
}

/** Opens an {@link EventsListener} for `queue` on a connection duplicated from `conn`. */
export function listen(conn: Connection, queue: string, options: ListenOptions = {}): Promise<EventsListener> {
  return EventsListener.open(conn, queue, options);
}
