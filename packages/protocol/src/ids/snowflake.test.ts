import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/validation.js';
import { ID_EPOCH_MS, MAX_SNOWFLAKE, snowflakeParts } from './snowflake.js';

describe('snowflakeParts', () => {
  it('uses the 2024-01-01 epoch', () => {
    expect(ID_EPOCH_MS).toBe(Date.UTC(2024, 0, 1));
  });

  it('splits the largest snowflake', () => {
    expect(snowflakeParts(MAX_SNOWFLAKE)).toEqual({ ts: 2n ** 41n - 1n, unixMs: 2 ** 41 - 1 + ID_EPOCH_MS, node: 1023, seq: 4095 });
  });

  it('reassembles to the same snowflake', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_SNOWFLAKE }), (s) => {
        const { ts, unixMs, node, seq } = snowflakeParts(s);
        expect((ts << 22n) | (BigInt(node) << 12n) | BigInt(seq)).toBe(s);
        expect(unixMs).toBe(Number(ts) + ID_EPOCH_MS);
      }),
    );
  });

  it('refuses values outside 0..2^63-1', () => {
    expect(() => snowflakeParts(-1n)).toThrow(InvalidArgumentError);
    expect(() => snowflakeParts(MAX_SNOWFLAKE + 1n)).toThrow(InvalidArgumentError);
  });
});
