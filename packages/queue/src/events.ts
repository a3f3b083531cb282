import type { Connection} from '@echo/protocol';
import { encodeEvent, parseEvent, queueKeys, type EventName, type JobId, type LifecycleEvent } from '@echo/protocol';

/**
 * Publishes a lifecycle event after a verdict (queue.md §12). Best effort by contract: a failed
 * publish never fails the transition it reports, so errors are handed to `onError` and swallowed.
 */
export function publishEvent(conn: Connection, channel: string, event: EventName, id: JobId, extra: Readonly<Record<string, string>> = {}, onError?: (error: unknown) => void): void {
  conn.command('PUBLISH', channel, encodeEvent(event, id, extra)).catch((error: unknown) => onError?.(error));
}

/** A listener for one queue's lifecycle events. */
export type EventListener = (event: LifecycleEvent) => void;

/**
 * Listens to a queue's events channel on its own connection (bus.md §1.3). Delivery is at most
 * once: events published while nobody listens, or between a socket drop and the re-subscribe, are
 * gone. The subscription is re-issued after every reconnect.
 */
export class QueueEvents {
  readonly channel: string;
  readonly #conn: Connection;
  readonly #listeners = new Set<EventListener>();

  private constructor(conn: Connection, channel: string) {
    this.#conn = conn;
    this.channel = channel;
    conn.onMessage((from, message) => {
      if (from !== this.channel) return;
      const event = parseEvent(message);
      if (!event) return;
      for (const listener of this.#listeners) listener(event);
    });
  }

  /** Opens a dedicated connection (duplicated from `conn`) and subscribes to `queue`'s channel. */
  static async open(conn: Connection, queue: string): Promise<QueueEvents> {
    const channel = queueKeys(queue).events;
    const own = await conn.duplicate();
    await own.subscribe(channel);
    return new QueueEvents(own, channel);
  }

  /** Adds a listener; answers a function that removes it. */
  on(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves with the first `completed` or `failed`-and-dead event for `id`, or rejects after
   * `timeoutMs`. Subscribe before enqueueing, or an early verdict can be missed.
   */
  waitFor(id: JobId, timeoutMs = 30_000): Promise<LifecycleEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no verdict for ${id} within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on((event) => {
        if (event.job !== id) return;
        if (event.event === 'completed' || (event.event === 'failed' && event.fields.outcome === 'dead')) {
          clearTimeout(timer);
          off();
          resolve(event);
        }
      });
    });
  }

  /** Unsubscribes and closes the connection. */
  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#conn.close();
  }
}
