/** Median, min and max of one figure over the measured rounds. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, n: sorted.length };
}

/** Per-round ratios a[i] / b[i]: each pair was measured back to back, so the noise mostly cancels. */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new Error(`paired series differ in length: ${a.length} vs ${b.length}`);
  return a.map((x, i) => x / (b[i] as number));
}

/** A number with about three significant digits, thousands separated. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `median (min–max)`. */
export function fmtSpread(s: Spread, format: (v: number) => string = fmt): string {
  if (s.n === 0) return 'n/a';
  if (s.n === 1) return format(s.median);
  return `${format(s.median)} (${format(s.min)}–${format(s.max)})`;
}

/** A ratio to two decimals, e.g. `0.93x`. */
export function fmtRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a';
}

/** Resolves once `done()` holds, checking every millisecond; rejects after `timeoutMs`. */
export async function waitUntil(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
