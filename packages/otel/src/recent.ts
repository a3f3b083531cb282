/**
 * A map that keeps at most `max` entries, dropping the oldest: the span contexts of recent
 * admissions and the consumer spans in flight must not grow without bound when a verdict never
 * comes (a lost lease) or a job is consumed by another process.
 */
export class Recent<V> {
  readonly #rows = new Map<string, V>();
  readonly #max: number;
  readonly #onDrop: ((value: V) => void) | undefined;

  constructor(max: number, onDrop?: (value: V) => void) {
    this.#max = max;
    this.#onDrop = onDrop;
  }

  get size(): number {
    return this.#rows.size;
  }

  set(key: string, value: V): void {
    this.#rows.delete(key);
    this.#rows.set(key, value);
    if (this.#rows.size <= this.#max) return;
    const oldest = this.#rows.entries().next();
    if (oldest.done === true) return;
    this.#rows.delete(oldest.value[0]);
    this.#onDrop?.(oldest.value[1]);
  }

  get(key: string): V | undefined {
    return this.#rows.get(key);
  }

  /** Answers the value and forgets it. */
  take(key: string): V | undefined {
    const value = this.#rows.get(key);
    if (value !== undefined) this.#rows.delete(key);
    return value;
  }

  /** Forgets everything, handing each value to the drop callback. */
  clear(): void {
    const values = [...this.#rows.values()];
    this.#rows.clear();
    if (this.#onDrop) for (const v of values) this.#onDrop(v);
  }
}
