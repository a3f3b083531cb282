const MASK64 = (1n << 64n) - 1n;
const FMIX_C1 = 0xff51afd7ed558ccdn;

/**
 * The placement hash of a snowflake (protocol.md §4.2): the first half of MurmurHash3's fmix64
 * finaliser, truncated to an unsigned 32-bit number. Other runtimes compute the same value, so the
 * steps are exactly the spec's, in 64-bit modular arithmetic.
 */
export function hash32(snowflake: bigint): number {
  let h = snowflake & MASK64;
  h ^= h >> 33n;
  h = (h * FMIX_C1) & MASK64;
  h ^= h >> 33n;
  return Number(h & 0xffffffffn);
}
