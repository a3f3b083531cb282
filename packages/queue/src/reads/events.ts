import { EventsListener, queueKeys, reads, type Connection, type EventsListenerParts, type JobId, type LifecycleEvent, type ListenOptions } from '@echo/protocol/queue';

export type { EventListener } from '@echo/protocol/queue';

/**
 * A queue's lifecycle events on their own connection (bus.md §1.3): the protocol's one
 * {@link EventsListener}, typed per event name (`on('completed', …)`), plus {@link waitFor}.
 * Delivery is at most once: events published while nobody listens, or between a socket drop and the
 * re-subscribe, are gone. The subscription is re-issued after every reconnect.
 */
export class QueueEvents extends EventsListener {
  /** The connection the listener was opened from: reads of retained outcomes go through it. */
  readonly #reads: Connection;

  protected constructor(parts: EventsListenerParts, reads: Connection) {
    super(parts);
    this.#reads = reads;
  }

  /**
   * Opens a dedicated connection (duplicated from `conn`) and subscribes to `queue`'s channel.
   * Without `onError`, a listener that throws is rethrown on a later tick.
   */
  static override open(conn: Connection, queue: string, options: ListenOptions = {}): Promise<QueueEvents> {
    return EventsListener.attach(conn, queue, options, (parts) => new QueueEvents(parts, conn));
  }

  /**
   * Resolves with the first `completed` or `failed`-and-dead event for `id`, or rejects after
   * `timeoutMs`. A verdict from before the call is not missed when the queue retains it [TS]: the
   * listener is already subscribed, so the job's row is read after the handler is in place, and a
   * retained completed or dead row answers at once with the event it published (`result` or
   * `error` in its fields). A row that does not exist yet is waited for (subscribe, then enqueue).
   */
  waitFor(id: JobId, timeoutMs = 30_000): Promise<LifecycleEvent> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (event: LifecycleEvent): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        off();
        resolve(event);
      };
      const timer = setTimeout(() => {
        done = true;
        off();
        reject(new Error(`no verdict for ${id} within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on('*', (event) => {
        if (event.job !== id) return;
        if (event.event === 'completed' || (event.event === 'failed' && event.fields.outcome === 'dead')) finish(event);
      });
      reads.sendRead(this.#reads, reads.queue.jobVerdict({ keys: queueKeys(this.queue), id })).then(
        ({ state, result, lastError: error }) => {
          if (state === 'completed') finish({ event: 'completed', job: id, fields: result ? { result } : {} });
          else if (state === 'dead') finish({ event: 'failed', job: id, fields: { outcome: 'dead', ...(error ? { error } : {}) } });
        },
        () => undefined,
      );
    });
  }
}
