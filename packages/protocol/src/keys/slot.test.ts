import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLOT_COUNT, crc16, hashtag, sameSlot, slot } from './slot.js';

const encoder = new TextEncoder();

/**
 * ioredis's own slot function, reached through ioredis because it is not our dependency. `null` when
 * the layout of node_modules hides it, in which case the cross-check is skipped.
 */
function loadClusterKeySlot(): ((key: string) => number) | null {
  try {
    const fromHere = createRequire(import.meta.url);
    const fromIoredis = createRequire(fromHere.resolve('ioredis'));
    return fromIoredis('cluster-key-slot') as (key: string) => number;
  } catch {
    return null;
  }
}

const clusterKeySlot = loadClusterKeySlot();

describe('crc16 (XMODEM)', () => {
  it('matches the check value', () => {
    expect(crc16(encoder.encode('123456789'))).toBe(0x31c3);
  });

  it('is zero for no bytes', () => {
    expect(crc16(new Uint8Array())).toBe(0);
  });
});

describe('hashtag', () => {
  it.each([
    ['emq:{orders}:pending', 'orders'],
    ['{emq}:version', 'emq'],
    ['ecc:{users}:USR0KHTOWnGLuC', 'users'],
    ['123456789', '123456789'],
    ['{}abc', '{}abc'],
    ['a{b', 'a{b'],
    ['a}b{c}', 'c'],
    ['{a}{b}', 'a'],
    ['{{a}}', '{a'],
    ['a{}{b}', 'a{}{b}'],
  ])('%j → %j', (key, tag) => {
    expect(hashtag(key)).toBe(tag);
  });
});

describe('slot (protocol.md §3.5 vectors)', () => {
  it.each([
    ['123456789', 12739],
    ['emq:{orders}:pending', 105],
    ['{emq}:version', 9051],
    ['emq:{q1}:active', 7450],
  ])('%s → %i', (key, expected) => {
    expect(slot(key)).toBe(expected);
    expect(slot(encoder.encode(key))).toBe(expected);
  });

  it('hashes UTF-8 bytes, not UTF-16 units', () => {
    expect(slot('{é}')).toBe(crc16(new Uint8Array([0xc3, 0xa9])) % SLOT_COUNT);
    expect(slot('x{😀}y')).toBe(slot(encoder.encode('😀')));
  });

  it('agrees between string and byte input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (key) => {
        expect(slot(key)).toBe(slot(encoder.encode(key)));
      }),
    );
  });

  it('follows the server when an empty tag is followed by another }', () => {
    // Redis (cluster.c keyHashSlot) hashes the whole key once the first `{` is followed directly by
    // `}`; it does not look for a later pair.
    expect(hashtag('{}}')).toBe('{}}');
    expect(slot('{}a}')).toBe(crc16(encoder.encode('{}a}')) % SLOT_COUNT);
  });

  it.skipIf(clusterKeySlot === null)('agrees with cluster-key-slot (ioredis) wherever that follows the server', () => {
    const reference = clusterKeySlot!;
    // cluster-key-slot skips an empty `{}` and keeps scanning for a later `}`, unlike the server, so
    // keys whose first `{` is directly closed are left to the test above.
    const followsServer = (key: string): boolean => {
      const open = key.indexOf('{');
      return open < 0 || key.charAt(open + 1) !== '}';
    };
    const braced = fc.tuple(fc.string(), fc.string(), fc.string()).map(([a, b, c]) => `${a}{${b}}${c}`);
    const keys = fc.oneof(fc.string({ unit: 'grapheme' }), braced, fc.string({ unit: fc.constantFrom('{', '}', 'a', 'é') }));
    fc.assert(
      fc.property(keys.filter(followsServer), (key) => {
        expect(slot(key)).toBe(reference(key));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('sameSlot', () => {
  it('accepts keys of one hashtag and the empty list', () => {
    expect(sameSlot([])).toBe(true);
    expect(sameSlot(['emq:{orders}:pending', 'emq:{orders}:job:JOB0Nb1VTbfnu4', '{orders}'])).toBe(true);
  });

  it('refuses keys of two queues, or a queue key with the reserve', () => {
    expect(sameSlot(['emq:{orders}:pending', 'emq:{q1}:active'])).toBe(false);
    expect(sameSlot(['emq:{orders}:pending', '{emq}:version'])).toBe(false);
  });
});
