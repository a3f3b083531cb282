/**
 * The worker's local clock for lease bookkeeping: monotonic, on a Unix-ms scale.
 *
 * A lease bound is "a send time plus the lease", compared later against "now". Read from
 * `Date.now()`, a wall clock stepped by NTP, a VM resume or an operator makes every bound wrong by
 * the step: forward, and each claim in flight looks late and is given up (`StaleError`); back, and a
 * worker believes a lease holds for an hour after the server reaped it. `performance.now()` never
 * steps, and `performance.timeOrigin` puts it on the Unix-ms scale at process start, so the figures
 * stay readable beside `Date.now()` until the wall clock is stepped. The connector's
 * `stats().readyAt` is read on the same clock.
 */
export function localNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * A time on {@link localNow}'s clock as wall-clock Unix ms now (what a user compares with
 * `Date.now()`): whole ms, rounded down, as `Date.now()` is, so a lease that ends within the
 * millisecond a handler started in never reads as later than that millisecond plus the lease.
 */
export function toWallTime(local: number): number {
  return Number.isFinite(local) ? Math.floor(local - localNow() + Date.now()) : local;
}
