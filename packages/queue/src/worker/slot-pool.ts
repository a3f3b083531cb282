/**
 * The worker's slot loops: how many are wanted (the `concurrency` option until `setConcurrency`
 * changes it), how many run, and the loops themselves for `close` to await. More start at once; when
 * fewer are wanted, a slot ends between jobs (see {@link SlotPool.retire}), so no running job is cut
 * short.
 */
export class SlotPool {
  /** The slot loops wanted. */
  #wanted: number;
  /** Slot loops started and not retired. */
  #live = 0;
  /** The slot loop, once {@link start} ran: what a raised count starts more of. */
  #slot: (() => Promise<void>) | undefined;
  readonly #loops: Promise<void>[] = [];

  constructor(wanted: number) {
    this.#wanted = wanted;
  }

  /** How many slot loops are wanted now. */
  get wanted(): number {
    return this.#wanted;
  }

  /** Starts {@link wanted} loops of `slot`. */
  start(slot: () => Promise<void>): void {
    this.#slot = slot;
    this.#spawn(this.#wanted);
  }

  /** Wants `count` loops: starts the missing ones at once when `running`; extra ones retire between jobs. */
  resize(count: number, running: boolean): void {
    this.#wanted = count;
    if (running && count > this.#live) this.#spawn(count - this.#live);
  }

  /** True while more slot loops run than are wanted: a slot between jobs takes no new one. */
  surplus(): boolean {
    return this.#live > this.#wanted;
  }

  /** A slot between jobs asks whether to end: true (and it is counted out) while slots are surplus. */
  retire(): boolean {
    if (!this.surplus()) return false;
    this.#live--;
    return true;
  }

  /** Settles when every loop started so far has ended. */
  async ended(): Promise<void> {
    await Promise.all(this.#loops);
  }

  #spawn(count: number): void {
    const slot = this.#slot;
    if (slot === undefined) return;
    for (let i = 0; i < count; i++) {
      this.#live++;
      this.#loops.push(slot());
    }
  }
}
