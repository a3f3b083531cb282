import { EventsListener, RenamedError, type Connection, type EventsListenerParts, type ListenOptions } from '@echo/protocol/queue';

export type { EventListener } from '@echo/protocol/queue';

/**
 * A queue's lifecycle events on their own connection (bus.md §1.3): the protocol's one
 * {@link EventsListener}, typed per event name (`on('completed', …)`). Delivery is at most once:
 * events published while nobody listens, or between a socket drop and the re-subscribe, are gone.
 * The subscription is re-issued after every reconnect. To wait for one job's verdict, call
 * `queue.waitUntilFinished(id, { events })`, which shares this listener's connection.
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
   * @deprecated A job's verdict is awaited one way: `queue.waitUntilFinished(id, { events })`,
   * which resolves with the decoded result and rejects with `JobFailedError`, `JobNotFoundError`
   * or `WaitTimeoutError`. This name is refused.
   * @throws RenamedError always, naming `Queue.waitUntilFinished`; nothing is subscribed or read.
   */
  waitFor(..._args: readonly unknown[]): never {
    throw new RenamedError('QueueEvents.waitFor()', 'queue.waitUntilFinished(id, { events })', 'one way to wait for a verdict: it resolves with the result and rejects with JobFailedError');
  }
}
