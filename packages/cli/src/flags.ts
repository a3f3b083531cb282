import { UsageError } from './errors.js';

/** A whole number from a flag, within bounds. */
export function intFlag(name: string, value: unknown, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number in ${min}..${max}`);
  return n;
}
