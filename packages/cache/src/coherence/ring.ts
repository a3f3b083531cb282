/**
 * A bounded FIFO for one producer and one consumer (cache.md §7.5). When full it refuses: a burst
 * of coherence must not grow memory without bound, and overwriting the oldest entry would lose a
 * message silently while a refusal is counted.
 */
export class Ring<T> {
  readonly #slots: (T | undefined)[];
  #head = 0;
  #length = 0;

  constructor(capacity: number) {
    this.#slots = new Array<T | undefined>(capacity).fill(undefined);
  }

  /** How many items the ring holds at most. */
  get capacity(): number {
    return this.#slots.length;
  }

  /** How many items wait. */
  get length(): number {
    return this.#length;
  }

  /** Appends `item`; answers `false`, changing nothing, when the ring is full. */
  push(item: T): boolean {
    if (this.#length === this.#slots.length) return false;
    this.#slots[(this.#head + this.#length) % this.#slots.length] = item;
    this.#length++;
    return true;
  }

  /** Removes and answers the oldest item. */
  shift(): T | undefined {
    if (this.#length === 0) return undefined;
    const item = this.#slots[this.#head];
    // Cleared so a drained ring keeps no message alive.
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#slots.length;
    this.#length--;
    return item;
  }

  /** Empties the ring. */
  clear(): void {
    this.#slots.fill(undefined);
    this.#head = 0;
    this.#length = 0;
  }
}
