/**
 * How often a namespace's L2 reads find nothing fresh lately, to pick the cheaper first step for an
 * L1 miss. Where entries are usually there, a plain read first (one batched `MGET`) saves the lease
 * script; where they are usually missing (a cold or write-once keyspace), that read is a wasted
 * round trip before the lease, so the lease read (`cache_read`, which answers a fresh entry too) goes
 * first. An exponentially weighted rate over the last few dozen reads; both steps feed it, so it
 * follows the keyspace either way.
 */
export class MissMeter {
  #rate = 0;

  /** Records one L2 read: did it find a fresh entry? */
  saw(fresh: boolean): void {
    this.#rate = this.#rate * 0.95 + (fresh ? 0 : 0.05);
  }

  /** True while most recent reads missed: skip the plain read and take the lease read first. */
  get mostlyMissing(): boolean {
    return this.#rate > 0.5;
  }
}
