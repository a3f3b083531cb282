import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hash32 } from './hash32.js';

/** The spec's steps, written independently with 32-bit halves, as a cross-check of the bigint path. */
function reference(s: bigint): number {
  const mask = (1n << 64n) - 1n;
  let h = BigInt.asUintN(64, s);
  h ^= h >> 33n;
  h = BigInt.asUintN(64, h * 0xff51afd7ed558ccdn) & mask;
  h ^= h >> 33n;
  return Number(BigInt.asUintN(32, h));
}

describe('hash32 (protocol.md §4.2)', () => {
  it('matches the §4.4 vector', () => {
    expect(hash32(274557032793636864n)).toBe(234878118);
  });

  it('maps zero to zero', () => {
    expect(hash32(0n)).toBe(0);
  });

  it('is an unsigned 32-bit integer matching the reference', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }), (s) => {
        const h = hash32(s);
        expect(Number.isInteger(h) && h >= 0 && h <= 0xffffffff).toBe(true);
        expect(h).toBe(reference(s));
      }),
    );
  });

  it('reduces its input mod 2^64 first', () => {
    expect(hash32(-1n)).toBe(hash32((1n << 64n) - 1n));
    expect(hash32(1n << 64n)).toBe(hash32(0n));
  });
});
