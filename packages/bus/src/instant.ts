import { InvalidArgumentError } from '@echo/protocol/bus';

/**
 * A wall-clock instant: a `Date`, or Unix milliseconds as an integer. Stream bounds are whole
 * milliseconds (bus.md §3), so a fractional number is refused rather than silently rounded.
 */
export type Instant = Date | number;

/** The largest tail an XADD id can carry: the full 22-bit `node << 12 | seq` (bus.md §3). */
export const MAX_TAIL = 0x3fffff;

/**
 * The instant as Unix milliseconds.
 *
 * @throws InvalidArgumentError for an invalid `Date`, a non-integer, or a negative instant.
 */
export function instantMs(instant: Instant, argument = 'instant'): number {
  const ms: unknown = instant instanceof Date ? instant.getTime() : instant;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) {
    throw new InvalidArgumentError(argument, `must be a valid Date or non-negative integer Unix milliseconds, got ${String(instant)}`);
  }
  return ms;
}

/**
 * `"<ms(t)>-0"`: the smallest XADD id an entry minted at or after `t` can have (bus.md §6).
 *
 * @throws InvalidArgumentError for an invalid instant.
 */
export function minidFloor(t: Instant): string {
  return `${instantMs(t)}-0`;
}

/**
 * `"<ms(t)>-4194303"`: the largest XADD id an entry minted at or before `t` can have, so an XRANGE
 * ending here is inclusive of every entry minted in `t`'s millisecond (bus.md §6).
 *
 * @throws InvalidArgumentError for an invalid instant.
 */
export function maxidCeil(t: Instant): string {
  return `${instantMs(t)}-${MAX_TAIL}`;
}
