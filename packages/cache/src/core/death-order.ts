/**
 * An L1's rows in the order they die, earliest first: a binary min-heap of (instant, key, row). A
 * row that is replaced or deleted is not taken out (that would need its position); its entry stays
 * until it reaches the top, where the owner sees that the key no longer holds that row and drops it,
 * and the heap is rebuilt from the live rows when such entries outnumber them.
 */
export class DeathOrder<R> {
  #at: number[] = [];
  #keys: string[] = [];
  #rows: R[] = [];

  /** Entries held, those of replaced or deleted rows included. */
  get size(): number {
    return this.#at.length;
  }

  /** When the earliest entry dies; `Infinity` when there is none. */
  get first(): number {
    return this.#at[0] ?? Infinity;
  }

  /** The earliest entry's key and row; call only when {@link size} is above 0. */
  peek(): [string, R] {
    return [this.#keys[0] as string, this.#rows[0] as R];
  }

  push(at: number, key: string, row: R): void {
    this.#at.push(at);
    this.#keys.push(key);
    this.#rows.push(row);
    this.#up(this.#at.length - 1);
  }

  /** Drops the earliest entry. */
  pop(): void {
    const last = this.#at.length - 1;
    if (last < 0) return;
    this.#move(last, 0);
    this.#at.pop();
    this.#keys.pop();
    this.#rows.pop();
    if (last > 0) this.#down(0);
  }

  /** Starts again from `entries` (the live rows), in O(n). */
  rebuild(entries: Iterable<[string, R]>, deadFrom: (row: R) => number): void {
    this.clear();
    for (const [key, row] of entries) {
      this.#at.push(deadFrom(row));
      this.#keys.push(key);
      this.#rows.push(row);
    }
    for (let i = (this.#at.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  clear(): void {
    this.#at = [];
    this.#keys = [];
    this.#rows = [];
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
    const rows = this.#rows;
    [at[i], at[j]] = [at[j] as number, at[i] as number];
    [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
    [rows[i], rows[j]] = [rows[j] as R, rows[i] as R];
  }

  #move(from: number, to: number): void {
    this.#at[to] = this.#at[from] as number;
    this.#keys[to] = this.#keys[from] as string;
    this.#rows[to] = this.#rows[from] as R;
  }
}
