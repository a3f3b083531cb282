/**
 * Where idle worker slots wait. Waking is a relay: one slot is woken per signal, and a slot that
 * found work wakes the next, so an idle worker with fifty slots costs one claim per beat, not fifty.
 */
export class IdleSlots {
  readonly #waiting: (() => void)[] = [];
  #someoneWaiting: (() => void) | undefined;
  #released = false;

  /** How many slots are parked. */
  get size(): number {
    return this.#waiting.length;
  }

  /** Parks the calling slot until {@link wakeOne} or {@link wakeAll}. */
  wait(): Promise<void> {
    if (this.#released) return Promise.resolve();
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

  /** Wakes every parked slot and lets no slot park again (on close). */
  releaseAll(): void {
    this.#released = true;
    for (const resolve of this.#waiting.splice(0)) resolve();
    const notify = this.#someoneWaiting;
    this.#someoneWaiting = undefined;
    notify?.();
  }
}
