/**
 * A worker's own pause: while it stands, the worker's slots claim nothing, from their first claim
 * on. Handlers already running finish and settle as usual.
 */
export class PauseGate {
  #paused: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;

  /** True between {@link pause} and {@link resume}. */
  get paused(): boolean {
    return this.#paused !== undefined;
  }

  /** Closes the gate; idempotent. */
  pause(): void {
    if (this.#paused) return;
    let resolve: () => void = () => undefined;
    const promise = new Promise<void>((r) => (resolve = r));
    this.#paused = { promise, resolve };
  }

  /** Opens the gate; idempotent. */
  resume(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    paused?.resolve();
  }

  /**
   * Waits while the gate is closed, until it opens or `closing` resolves. Once `closing` has
   * resolved it answers at once: racing it again would settle in a microtask every time and never
   * let a timer run (the process would spin until it ran out of memory).
   */
  async wait(closing: Promise<void>): Promise<void> {
    for (let gate = this.#paused; gate !== undefined; gate = this.#paused) {
      const closed = await Promise.race([gate.promise.then(() => false), closing.then(() => true)]);
      if (closed) return;
    }
  }
}
