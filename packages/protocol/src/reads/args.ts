import { InvalidArgumentError } from '../errors/validation.js';

/*
 * The argument checks the plain reads and writes share: each runs when the command is built, so a
 * bad argument is refused before anything is sent.
 */

/** A non-empty string argument. */
export function textArg(name: string, value: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(name, 'must be a non-empty string');
  return value;
}

/** A positive integer argument, as the decimal text the server reads. */
export function positiveArg(name: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(name, `must be a positive integer, got ${String(value)}`);
  return String(value);
}
