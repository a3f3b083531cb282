/** A listener for one event of an {@link TypedEmitter}'s map. */
export type Listener<T> = (payload: T) => void;

/** Called with what a listener threw, and the event it was handling. */
export type ListenerErrorHandler = (error: unknown, event: string) => void;

/**
 * One listener mechanism for everything in Echo that reports events: the connector's subscriptions
 * and tracking, the lifecycle events listener, and whatever a pillar builds on them. The event map
 * is closed (`E`'s keys), so `on('complted', …)` is a type error rather than a listener that never
 * fires, and each listener gets its event's payload type.
 *
 * A listener that throws does not stop the others, nor throw into the socket reader that emitted:
 * the throw goes to the `onListenerError` given at construction, or, without one, is rethrown on a
 * later tick (as an uncaught exception, like Node's own emitter would).
 */
export class TypedEmitter<E extends { [K in keyof E]: unknown }> {
  readonly #listeners = new Map<keyof E, Map<Listener<never>, boolean>>();
  readonly #onListenerError: ListenerErrorHandler | undefined;

  constructor(onListenerError?: ListenerErrorHandler) {
    this.#onListenerError = onListenerError;
  }

  /** Adds `listener` for `event` (once per function: adding it again changes nothing). Answers a remover. */
  on<K extends keyof E>(event: K, listener: Listener<E[K]>): () => void {
    return this.#add(event, listener, false);
  }

  /** Like {@link on}, but the listener is removed before its first call. */
  once<K extends keyof E>(event: K, listener: Listener<E[K]>): () => void {
    return this.#add(event, listener, true);
  }

  /** Removes `listener` from `event`; answers whether it was there. */
  off<K extends keyof E>(event: K, listener: Listener<E[K]>): boolean {
    const listeners = this.#listeners.get(event);
    if (!listeners?.delete(listener)) return false;
    if (listeners.size === 0) this.#listeners.delete(event);
    return true;
  }

  /** How many listeners `event` has, or all events together. */
  listenerCount(event?: keyof E): number {
    if (event !== undefined) return this.#listeners.get(event)?.size ?? 0;
    let count = 0;
    for (const listeners of this.#listeners.values()) count += listeners.size;
    return count;
  }

  /** Calls every listener of `event` with `payload`, in the order they were added. */
  protected emit<K extends keyof E>(event: K, payload: E[K]): void {
    const listeners = this.#listeners.get(event);
    if (listeners === undefined) return;
    // A copy: a listener may add or remove listeners, itself included, while this runs.
    for (const [listener, once] of [...listeners]) {
      if (once) this.off(event, listener as Listener<E[K]>);
      try {
        (listener as Listener<E[K]>)(payload);
      } catch (error) {
        this.#report(error, String(event));
      }
    }
  }

  /** Drops every listener (on close). */
  protected removeAllListeners(): void {
    this.#listeners.clear();
  }

  #add<K extends keyof E>(event: K, listener: Listener<E[K]>, once: boolean): () => void {
    let listeners = this.#listeners.get(event);
    if (listeners === undefined) {
      listeners = new Map();
      this.#listeners.set(event, listeners);
    }
    if (!listeners.has(listener)) listeners.set(listener, once);
    return () => void this.off(event, listener);
  }

  #report(error: unknown, event: string): void {
    const handler = this.#onListenerError;
    if (handler === undefined) {
      process.nextTick(() => {
        throw error;
      });
      return;
    }
    try {
      handler(error, event);
    } catch (handlerError) {
      process.nextTick(() => {
        throw handlerError;
      });
    }
  }
}
