/**
 * A clock a workload reads instead of `Date.now()`, so a fault can move it: the skew of a worker
 * host whose clock jumped. Pass `now` wherever the code under test takes a clock.
 */
export class InjectedClock {
  #offsetMs = 0;

  /** `Date.now()` plus the current skew. */
  readonly now = (): number => Date.now() + this.#offsetMs;

  /** The current skew in ms. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Moves the clock by `ms` (negative: back). */
  jump(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`jump must be a finite number of ms, got ${String(ms)}`);
    this.#offsetMs += ms;
  }

  /** Back to the real time. */
  reset(): void {
    this.#offsetMs = 0;
  }
}
