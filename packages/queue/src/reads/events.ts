import { EventsListener, type Connection, type EventsListenerParts, type JobId, type LifecycleEvent, type ListenOptions } from '@echo/protocol';

export type { EventListener } from '@echo/protocol';

/**
 * A queue's lifecycle events on their own connection (bus.md §1.3): the protocol's one
 * {@link EventsListener}, typed per event name (`on('completed', …)`), plus {@link waitFor}.
 * Delivery is at most once: events published while nobody listens, or between a socket drop and the
 * re-subscribe, are gone. The subscription is re-issued after every reconnect.
 */
export class QueueEvents extends EventsListener {
  protected constructor(parts: EventsListenerParts) {
    super(parts);
  }

  /**
   * Opens a dedicated connection (duplicated from `conn`) and subscribes to `queue`'s channel.
   * Without `onError`, a listener that throws is rethrown on a later tick.
   */
  static override open(conn: Connection, queue: string, options: ListenOptions = {}): Promise<QueueEvents> {
    return EventsListener.attach(conn, queue, options, (parts) => new QueueEvents(parts));
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
      const off = this.on('*', (event) => {
        if (event.job !== id) return;
        if (event.event === 'completed' || (event.event === 'failed' && event.fields.outcome === 'dead')) {
          clearTimeout(timer);
          off();
          resolve(event);
        }
      });
    });
  }
}
