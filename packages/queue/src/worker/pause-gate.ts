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

  /** Waits while the gate is closed, until it opens or `closing` resolves. */
  async wait(closing: Promise<void>): Promise<void> {
    while (this.#paused) await Promise.race([this.#paused.promise, closing]);
  }
}
