/**
 * An L1's keys in the order their rows die, earliest first: a binary min-heap of (instant, key). A
 * row that is replaced or deleted is not taken out (that would need its position); its entry stays
 * until it reaches the top, where the owner sees that the key no longer holds a row dying at that
 * instant and drops it, and the heap is rebuilt from the live rows when such entries outnumber them.
 * Entries hold keys, not rows, so a replaced or deleted value is not kept alive by its stale entry.
 */
export class DeathOrder {
  #at: number[] = [];
  #keys: string[] = [];

  /** Entries held, those of replaced or deleted rows included. */
  get size(): number {
    return this.#at.length;
  }

  /** When the earliest entry dies; `Infinity` when there is none. */
  get first(): number {
    return this.#at[0] ?? Infinity;
  }

  /** The earliest entry's key; call only when {@link size} is above 0. */
  peek(): string {
    return this.#keys[0] as string;
  }

  push(at: number, key: string): void {
    this.#at.push(at);
    this.#keys.push(key);
    this.#up(this.#at.length - 1);
  }

  /** Drops the earliest entry. */
  pop(): void {
    const last = this.#at.length - 1;
    if (last < 0) return;
    this.#move(last, 0);
    this.#at.pop();
    this.#keys.pop();
    if (last > 0) this.#down(0);
  }

  /** Starts again from `entries` (the live rows), in O(n). */
  rebuild<R>(entries: Iterable<[string, R]>, deadFrom: (row: R) => number): void {
    this.clear();
    for (const [key, row] of entries) {
      this.#at.push(deadFrom(row));
      this.#keys.push(key);
    }
    for (let i = (this.#at.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  clear(): void {
    this.#at = [];
    this.#keys = [];
  }

  #up(i: number): void {
    const at = this.#at;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((at[parent] as number) <= (at[i] as number)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const at = this.#at;
    const n = at.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && (at[right] as number) < (at[left] as number) ? right : left;
      if ((at[i] as number) <= (at[child] as number)) return;
      this.#swap(i, child);
      i = child;
    }
  }

  #swap(i: number, j: number): void {
    const at = this.#at;
    const keys = this.#keys;
    [at[i], at[j]] = [at[j] as number, at[i] as number];
    [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
  }

  #move(from: number, to: number): void {
    this.#at[to] = this.#at[from] as number;
    this.#keys[to] = this.#keys[from] as string;
  }
}
