/** What the registry needs of one sent command: its outcome, and a way to fail it. */
export interface Settleable {
  readonly promise: Promise<unknown>;
  reject(error: Error): void;
}

/**
 * The calls written to one socket and not yet answered. The driver is told never to replay a call
 * after a reconnect, and then drops the calls that were in flight when the socket closed without
 * settling them; the connector fails them itself through this registry, since only the caller knows
 * whether a call that may or may not have run is safe to send again.
 */
export class InFlight {
  readonly #calls = new Set<Settleable>();

  /** How many calls are waiting for a reply. */
  get size(): number {
    return this.#calls.size;
  }

  /** Registers a call as written; it leaves the registry when it settles, either way. */
  add(call: Settleable): void {
    this.#calls.add(call);
    const done = (): void => void this.#calls.delete(call);
    call.promise.then(done, done);
  }

  /** Fails every call still waiting with `error` (a call that settled meanwhile ignores it). */
  failAll(error: () => Error): void {
    if (this.#calls.size === 0) return;
    const calls = [...this.#calls];
    this.#calls.clear();
    for (const call of calls) call.reject(error());
  }
}
