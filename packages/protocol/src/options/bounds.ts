import { InvalidArgumentError } from '../errors/validation.js';

/*
 * The ranges of time-like option values. A number past them is a slip (seconds for ms, a date for a
 * span, a stray exponent), never an intent: `delayMs: 1e15` would date a job in the year 33715.
 */

/**
 * The longest span an option may put on the server: a delay, a TTL, a deadline, a retention age,
 * 10 years (3650 days) in ms. Far inside what a sorted-set score holds with ms precision (2^53) and
 * what `PEXPIRE` takes, so every stored time stays exact.
 */
export const MAX_SPAN_MS = 315_360_000_000;

/**
 * The longest span a process may wait on with a timer (a block, a beat, a poll period, a timeout):
 * 2^31 - 1 ms, about 24.8 days. Node fires a longer `setTimeout` after 1 ms instead, and
 * `BLPOP`/`XREAD` blocks beyond it would outlive every socket timeout.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * What a time-like option is bounded by: `span` (at most {@link MAX_SPAN_MS}), `timer` (at most
 * {@link MAX_TIMER_MS}) or `instant` (an epoch-ms number or a `Date` at most {@link MAX_SPAN_MS} ahead
 * of now).
 */
export type TimeBound = 'span' | 'timer' | 'instant';

/** A time-like option past its bound (see {@link TimeBound}); nothing was sent. */
export class OptionRangeError extends InvalidArgumentError {
  /** The refused option, e.g. `delayMs`. */
  readonly option: string;
  /** Where it was passed, e.g. `enqueue options`. */
  readonly where: string;
  /** The bound it broke. */
  readonly bound: TimeBound;
  /** The largest value admitted, in ms (for `instant`, ahead of now). */
  readonly max: number;

  constructor(where: string, option: string, bound: TimeBound, value: number) {
    super(`${where}.${option}`, describe(bound, value));
    this.option = option;
    this.where = where;
    this.bound = bound;
    this.max = bound === 'timer' ? MAX_TIMER_MS : MAX_SPAN_MS;
  }
}

function describe(bound: TimeBound, value: number): string {
  const shown = String(value);
  if (bound === 'timer') return `${shown} ms is past the bound of ${String(MAX_TIMER_MS)} ms (2^31 - 1, about 24.8 days, the longest timer a process holds)`;
  if (bound === 'span') return `${shown} ms is past the bound of ${String(MAX_SPAN_MS)} ms (10 years)`;
  return `epoch ms ${shown} is past the bound of ${String(MAX_SPAN_MS)} ms (10 years) ahead of now`;
}

function msOf(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  return typeof value === 'number' ? value : undefined;
}

/**
 * Refuses a time-like value past its bound. Only finite numbers (and dates, for an instant) are
 * judged: anything else (undefined, `Infinity` where it means "none", a wrong type) is left to the
 * option's own check, which knows what it admits.
 * @throws OptionRangeError past the bound.
 */
export function checkTimeBound(where: string, option: string, value: unknown, bound: TimeBound, now: number = Date.now()): void {
  const ms = msOf(value);
  if (ms === undefined || !Number.isFinite(ms)) return;
  const over = bound === 'instant' ? ms - now > MAX_SPAN_MS : ms > (bound === 'timer' ? MAX_TIMER_MS : MAX_SPAN_MS);
  if (over) throw new OptionRangeError(where, option, bound, ms);
}
