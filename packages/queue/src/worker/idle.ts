/**
 * Where idle worker slots wait. Waking is a relay: one slot is woken per signal, and a slot that
 * found work wakes the next, so an idle worker with fifty slots costs one claim per beat, not fifty.
 */
export class IdleSlots {
  readonly #waiting: (() => void)[] = [];
  #someoneWaiting: (() => void) | undefined;
  #released = false;
  /** A wake that found no slot parked: the next slot to park takes it at once. */
  #owed = false;
  #reopen: NodeJS.Timeout | undefined;

  /** How many slots are parked. */
  get size(): number {
    return this.#waiting.length;
  }

  /** Parks the calling slot until {@link wakeOne} or {@link wakeAll}. */
  wait(): Promise<void> {
    if (this.#released) return Promise.resolve();
    if (this.#owed) {
      this.#owed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      const notify = this.#someoneWaiting;
      this.#someoneWaiting = undefined;
      notify?.();
    });
  }

  /** Resolves once at least one slot is parked. */
  whenSomeoneWaits(): Promise<void> {
    if (this.#waiting.length > 0) return Promise.resolve();
    return new Promise((resolve) => (this.#someoneWaiting = resolve));
  }

  /** Wakes the longest-parked slot, if any. */
  wakeOne(): void {
    this.#waiting.shift()?.();
  }

  /**
   * The rate limit refused a claim and its window reopens in `ms`: no job arriving will push a wake
   * token then, so one slot is woken when it does (or, none parked, the next to park is let
   * through) and the relay passes it on. One timer at a time: later refusals in the same window
   * change nothing. The deadline is kept on the monotonic clock and checked when the timer fires:
   * a timer counts from the event loop's cached time, which on a busy machine lags the real one by
   * as much as the loop's last turn took, and firing early would claim into the closed window
   * (refused again, with nothing left to wake the slot until the wake read's `blockMs` runs out).
   * One ms more covers the server's PTTL rounding down.
   */
  wakeAfter(ms: number): void {
    if (this.#reopen !== undefined || this.#released) return;
    this.#arm(performance.now() + ms + 1);
  }

  #arm(at: number): void {
    this.#reopen = setTimeout(() => {
      if (performance.now() < at) {
        this.#arm(at);
        return;
      }
      this.#reopen = undefined;
      if (this.#waiting.length > 0) this.wakeOne();
      else this.#owed = true;
    }, Math.max(1, Math.ceil(at - performance.now())));
    this.#reopen.unref();
  }

  /** Wakes every parked slot and lets no slot park again (on close). */
  releaseAll(): void {
    this.#released = true;
    clearTimeout(this.#reopen);
    this.#reopen = undefined;
    for (const resolve of this.#waiting.splice(0)) resolve();
    const notify = this.#someoneWaiting;
    this.#someoneWaiting = undefined;
    notify?.();
  }
}
