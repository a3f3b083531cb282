/**
 * The events channel half of the bus (bus.md §1.3). The listener itself lives in `@echo/protocol`,
 * shared with the queue's `QueueEvents`, so that `emq:{q}:events` is read by one implementation.
 */
import { EventsListener, type Connection, type ListenOptions } from '@echo/protocol/bus';
import { checkListenOptions } from '../core/option-checks.js';

export {
  EventsListener,
  eventNameOf,
  type EventListener,
  type EventSubscriber,
  type EventsListenerStats,
  type LifecycleEventMap,
  type LifecycleEventOf,
  type ListenOptions,
} from '@echo/protocol/bus';

/**
 * Opens an {@link EventsListener} for `queue` on a connection duplicated from `conn`.
 *
 * @throws UnknownOptionError for an unknown option, before any connection is made.
 */
export async function listen(conn: Connection, queue: string, options: ListenOptions = {}): Promise<EventsListener> {
  checkListenOptions(options);
  return await EventsListener.open(conn, queue, options);
}
