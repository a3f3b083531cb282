/**
 * Callers waiting on another process's load of a key. The namespace's coherence log wakes them when
 * the fill (or a release, a delete) for the key arrives; otherwise their timer does, at the lease's
 * expiry, and they ask again.
 */
export class Waiters {
  readonly #byKey = new Map<string, Set<() => void>>();

  /** Resolves on {@link wake} for `key` or after `ms`, whichever is first. */
  wait(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#byKey.get(key);
      if (set === undefined) this.#byKey.set(key, (set = new Set()));
      const waiters = set;
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.#byKey.get(key) === waiters) this.#byKey.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(ms, 1));
      waiters.add(done);
    });
  }

  wake(key: string): void {
    const waiters = this.#byKey.get(key);
    if (waiters !== undefined) for (const done of [...waiters]) done();
  }

  wakeAll(): void {
    for (const key of [...this.#byKey.keys()]) this.wake(key);
  }
}
