import { InvalidArgumentError } from '../errors/validation.js';

/** The snowflake epoch, 2024-01-01T00:00:00Z in Unix milliseconds (protocol.md §4.1). */
export const ID_EPOCH_MS = 1704067200000;

/** The largest snowflake a branded id can carry, 2^63 − 1; larger values are refused, never wrapped. */
export const MAX_SNOWFLAKE = (1n << 63n) - 1n;

/** The fields packed into a snowflake (protocol.md §4.1). */
export interface SnowflakeParts {
  /** Milliseconds since {@link ID_EPOCH_MS} (41 bits). A bigint because it is read straight off the snowflake. */
  readonly ts: bigint;
  /** `ts` as Unix milliseconds; always below 2^53, so a number is exact. */
  readonly unixMs: number;
  /** The minting node, 0..1023. */
  readonly node: number;
  /** The per-millisecond sequence, 0..4095. */
  readonly seq: number;
}

/**
 * Checks that `snowflake` is a bigint in `0..2^63−1`. Callers from plain JavaScript may pass a
 * number, which would silently lose precision above 2^53, so the type is checked too.
 */
export function assertSnowflake(snowflake: unknown): asserts snowflake is bigint {
  if (typeof snowflake !== 'bigint') {
    throw new InvalidArgumentError('snowflake', `must be a bigint, got ${typeof snowflake}`);
  }
  if (snowflake < 0n || snowflake > MAX_SNOWFLAKE) {
    throw new InvalidArgumentError('snowflake', `must be in 0..2^63-1, got ${snowflake}`);
  }
}

/**
 * Splits a snowflake into its fields.
 *
 * @throws InvalidArgumentError when `s` is outside `0..2^63−1`.
 */
export function snowflakeParts(s: bigint): SnowflakeParts {
  assertSnowflake(s);
  const ts = s >> 22n;
  return {
    ts,
    unixMs: Number(ts) + ID_EPOCH_MS,
    node: Number((s >> 12n) & 0x3ffn),
    seq: Number(s & 0xfffn),
  };
}
