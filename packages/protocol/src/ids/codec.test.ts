import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, MalformedIdError } from '../errors/validation.js';
import { ID_LENGTH, MAX_PAYLOAD, decodeId, encodeFields, encodeId, isNamespace } from './codec.js';
import { MAX_SNOWFLAKE, snowflakeParts } from './snowflake.js';

/** The characters of an ASCII string, one per element. */
function chars(text: string): string[] {
  return Array.from({ length: text.length }, (_, i) => text.charAt(i));
}

const namespaceArb = fc.string({ unit: fc.constantFrom(...chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ')), minLength: 3, maxLength: 3 });
const snowflakeArb = fc.bigInt({ min: 0n, max: MAX_SNOWFLAKE });

function refusal(id: unknown): string {
  try {
    decodeId(id as string);
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedIdError);
    return (error as MalformedIdError).message;
  }
  throw new Error(`decodeId accepted ${String(id)}`);
}

describe('protocol.md §4.4 vectors', () => {
  it('encodes USR 274557032793636864', () => {
    expect(encodeId('USR', 274557032793636864n)).toBe('USR0KHTOWnGLuC');
  });

  it('decodes USR0KHTOWnGLuC with its fields', () => {
    const { namespace, snowflake } = decodeId('USR0KHTOWnGLuC');
    expect(namespace).toBe('USR');
    expect(snowflake).toBe(274557032793636864n);
    expect(snowflakeParts(snowflake)).toEqual({ ts: 65459497641n, unixMs: 1769526697641, node: 0, seq: 0 });
  });

  it('decodes USR0NgWEfAEJfs', () => {
    const { namespace, snowflake } = decodeId('USR0NgWEfAEJfs');
    expect(namespace).toBe('USR');
    expect(snowflake).toBe(320636799581945856n);
    expect(snowflakeParts(snowflake).unixMs).toBe(1780512970164);
  });

  it('refuses USRzzzzzzzzzzz for range', () => {
    expect(refusal('USRzzzzzzzzzzz')).toMatch(/: range:/);
  });

  it('decodes the largest payload to 2^63 - 1', () => {
    expect(decodeId(`USR${MAX_PAYLOAD}`).snowflake).toBe(9223372036854775807n);
    expect(encodeId('USR', MAX_SNOWFLAKE)).toBe('USRAzL8n0Y58m7');
  });

  it('refuses to encode 2^63', () => {
    expect(() => encodeId('USR', 2n ** 63n)).toThrow(InvalidArgumentError);
  });

  it('encodes zero as eleven zeros', () => {
    expect(encodeId('USR', 0n)).toBe('USR00000000000');
  });

  it('refuses a lower-case namespace', () => {
    expect(refusal('usr0KHTOWnGLuC')).toMatch(/: namespace:/);
  });

  it('refuses a byte outside the alphabet', () => {
    expect(refusal('USR0KHTOWnGLu*')).toMatch(/: charset:/);
  });

  it('refuses 13 and 15 bytes', () => {
    expect(refusal('USR0KHTOWnGLu')).toMatch(/: length: 13/);
    expect(refusal('USR0KHTOWnGLuCx')).toMatch(/: length: 15/);
  });

  it("decodes the course's example job", () => {
    const { namespace, snowflake } = decodeId('JOB0Nb1VTbfnu4');
    expect(namespace).toBe('JOB');
    expect(snowflake).toBe(319436884017152000n);
    expect(snowflakeParts(snowflake).unixMs).toBe(1780226888000);
  });

  it('decodes EVT000xY9Wvvcd (also bus.md §3)', () => {
    const { snowflake } = decodeId('EVT000xY9Wvvcd');
    expect(snowflake).toBe(209715201620567n);
    expect(snowflakeParts(snowflake)).toEqual({ ts: 50000000n, unixMs: 1704117200000, node: 395, seq: 2647 });
  });

  it('decodes EVT000004Zqs4W (bus.md §3)', () => {
    const { snowflake } = decodeId('EVT000004Zqs4W');
    expect(snowflake).toBe(4194304000n);
    expect(snowflakeParts(snowflake)).toEqual({ ts: 1000n, unixMs: 1704067201000, node: 0, seq: 0 });
  });

  it('refuses bus.md §3 not-branded', () => {
    expect(refusal('not-branded')).toMatch(/length/);
  });
});

describe('encode refusals', () => {
  it.each(['', 'US', 'USRX', 'usr', 'U1R', 'ÜSR', 'US-'])('refuses namespace %j', (ns) => {
    expect(() => encodeId(ns, 1n)).toThrow(InvalidArgumentError);
  });

  it('refuses a negative snowflake', () => {
    expect(() => encodeId('USR', -1n)).toThrow(InvalidArgumentError);
  });

  it('refuses a number from untyped callers', () => {
    expect(() => encodeId('USR', 5 as unknown as bigint)).toThrow(/must be a bigint/);
  });

  it('refuses a non-string namespace without throwing a TypeError', () => {
    expect(() => encodeId(Object.create(null) as string, 1n)).toThrow(InvalidArgumentError);
  });
});

describe('decode refusals', () => {
  it('refuses non-strings', () => {
    expect(refusal(42)).toMatch(/type/);
    expect(refusal(undefined)).toMatch(/type/);
    expect(refusal(Object.create(null))).toMatch(/type/);
  });

  it('refuses a non-ASCII byte in the payload', () => {
    expect(refusal('USR0KHTOWnGLué')).toMatch(/charset/);
  });

  it('refuses the first payload above the maximum and accepts the maximum', () => {
    expect(refusal('USRAzL8n0Y58m8')).toMatch(/range/);
    expect(refusal('USRB0000000000')).toMatch(/range/);
    expect(decodeId('USRAzL8n0Y58m6').snowflake).toBe(MAX_SNOWFLAKE - 1n);
  });

  it('checks length before namespace, namespace before charset', () => {
    expect(refusal('usr*')).toMatch(/length/);
    expect(refusal('us*0KHTOWnGLu*')).toMatch(/namespace/);
  });
});

describe('properties', () => {
  it('round-trips every namespace and snowflake', () => {
    fc.assert(
      fc.property(namespaceArb, snowflakeArb, (ns, s) => {
        const id = encodeId(ns, s);
        expect(id).toHaveLength(ID_LENGTH);
        expect(decodeId(id)).toEqual({ namespace: ns, snowflake: s });
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips every valid id string', () => {
    const digit = fc.constantFrom(...chars('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'));
    const payload = fc.string({ unit: digit, minLength: 11, maxLength: 11 }).filter((p) => p <= MAX_PAYLOAD);
    fc.assert(
      fc.property(namespaceArb, payload, (ns, p) => {
        const { namespace, snowflake } = decodeId(ns + p);
        expect(encodeId(namespace, snowflake)).toBe(ns + p);
      }),
    );
  });

  it('order theorem: byte order of same-namespace ids is numeric order of snowflakes', () => {
    const sign = (n: number): number => Math.sign(n);
    const near = fc
      .tuple(snowflakeArb, fc.bigInt({ min: -5000n, max: 5000n }))
      .map(([s, d]) => [s, s + d < 0n ? 0n : s + d > MAX_SNOWFLAKE ? MAX_SNOWFLAKE : s + d] as const);
    fc.assert(
      fc.property(namespaceArb, fc.oneof(fc.tuple(snowflakeArb, snowflakeArb), near), (ns, [a, b]) => {
        const ia = encodeId(ns, a);
        const ib = encodeId(ns, b);
        const byBytes = Buffer.compare(Buffer.from(ia), Buffer.from(ib));
        expect(sign(byBytes)).toBe(a < b ? -1 : a > b ? 1 : 0);
        expect(ia < ib).toBe(a < b);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('encodeFields, the float-only encoder the minter uses', () => {
  /** encodeFields of a snowflake, split into its `ts` and `tail` as a minter holds them. */
  function viaFields(ns: string, s: bigint): string {
    return encodeFields(ns, Number(s >> 22n), Number(s & 0x3fffffn));
  }

  it('writes the bytes of encodeId at the edges: zero, 2^63 - 1, every power and neighbour of 2 and of 62', () => {
    const edges = new Set<bigint>([0n, 1n, MAX_SNOWFLAKE, MAX_SNOWFLAKE - 1n]);
    for (let k = 0n; k < 63n; k++) for (const d of [-1n, 0n, 1n]) edges.add((1n << k) + d);
    // Multiples of 62^6 and their neighbours are where a float quotient could round up past the floor.
    for (let k = 0n; k <= 10n; k++) for (const d of [-1n, 0n, 1n]) edges.add(62n ** k + d);
    for (let m = 1n; m < 1n << 27n; m = m * 3n + 1n) for (const d of [-1n, 0n, 1n]) edges.add(m * 62n ** 6n + d);
    let checked = 0;
    for (const s of edges) {
      if (s < 0n || s > MAX_SNOWFLAKE) continue;
      expect(viaFields('EVT', s), String(s)).toBe(encodeId('EVT', s));
      checked++;
    }
    expect(checked).toBeGreaterThan(250);
  });

  it('writes the bytes of encodeId for any namespace and snowflake', () => {
    const nearMultiple = fc.tuple(fc.bigInt({ min: 0n, max: (MAX_SNOWFLAKE / 62n ** 6n) - 1n }), fc.bigInt({ min: -3n, max: 3n })).map(([m, d]) => {
      const s = m * 62n ** 6n + d;
      return s < 0n ? 0n : s;
    });
    fc.assert(
      fc.property(namespaceArb, fc.oneof(snowflakeArb, nearMultiple), (ns, s) => {
        expect(viaFields(ns, s)).toBe(encodeId(ns, s));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('isNamespace', () => {
  it('accepts three upper-case letters only', () => {
    expect(isNamespace('JOB')).toBe(true);
    expect(isNamespace('JOb')).toBe(false);
    expect(isNamespace('JO')).toBe(false);
    expect(isNamespace(123)).toBe(false);
  });
});
