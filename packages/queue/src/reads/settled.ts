import { GoneError, type reads } from '@echo/protocol/queue';

/** A pipelined read's value, or the error it alone met. */
export function settledValue<T>(settled: reads.ReadSettled<T>): T {
  if (!settled.ok) throw settled.error;
  return settled.value;
}

/**
 * A read of a job's sub-key, pipelined behind the `EXISTS` of its row: a sub-key outlives nothing,
 * but an absent list reads as empty, so only the row tells a job with no lines from a gone job.
 *
 * @throws GoneError when the row does not exist; the error either read met otherwise.
 */
export function ifRowExists<T>(exists: reads.ReadSettled<boolean>, value: reads.ReadSettled<T>): T {
  if (!settledValue(exists)) throw new GoneError();
  return settledValue(value);
}
