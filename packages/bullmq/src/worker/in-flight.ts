/**
 * The jobs a worker's processor took and whose settlement it has not yet seen, so `pause()` can
 * resolve only when they ended (BullMQ's pause waits for the jobs running at the time).
 */
export class InFlight {
  readonly #ids = new Set<string>();
  readonly #waiters: (() => void)[] = [];

  /** A job was taken. */
  add(id: string): void {
    this.#ids.add(id);
  }

  /** A job settled (completed, failed, or parked by the processor); wakes the waiters at the last. */
  done(id: string): void {
    if (this.#ids.delete(id) && this.#ids.size === 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once no job is in flight, or when `stop` resolves first (the worker closed). */
  async idle(stop: Promise<void>): Promise<void> {
    if (this.#ids.size === 0) return;
    await Promise.race([new Promise<void>((resolve) => this.#waiters.push(resolve)), stop]);
  }
}
