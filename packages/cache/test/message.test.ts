import { MalformedIdError, type BrandedId, encodeId, mintId } from '@echo/protocol/cache';
import { describe, expect, it } from 'vitest';
import { MESSAGE_LENGTH, encodeMessage, newer, parseMessage } from '../src/coherence/message.js';

const id = (ns: string, s: bigint): BrandedId => encodeId(ns, s);

describe('coherence message (cache.md §7.1)', () => {
  it('is exactly 29 bytes: id, colon, version', () => {
    const user = mintId('USR');
    const version = mintId('VER');
    const payload = encodeMessage(user, version);
    expect(payload).toHaveLength(MESSAGE_LENGTH);
    expect(MESSAGE_LENGTH).toBe(29);
    expect(parseMessage(payload)).toEqual({ id: user, version });
    expect(parseMessage(Buffer.from(payload))).toEqual({ id: user, version });
  });

  it('refuses to encode a half that is not a branded id', () => {
    expect(() => encodeMessage('nope' as BrandedId, mintId('VER'))).toThrow(MalformedIdError);
  });

  it.each([
    ['empty', ''],
    ['28 bytes', 'USR0KHTOWnGLuC:USR0KHTOWnGLu'],
    ['30 bytes', 'USR0KHTOWnGLuC:USR0KHTOWnGLuCx'],
    ['another separator at byte 15', 'USR0KHTOWnGLuC;USR0KHTOWnGLuC'],
    ['separator one byte early', 'USR0KHTOWnGLu:CUSR0KHTOWnGLuC'],
    ['a bad id half', 'usr0KHTOWnGLuC:USR0KHTOWnGLuC'],
    ['a bad version half', 'USR0KHTOWnGLuC:USRzzzzzzzzzzz'],
    ['a charset error', 'USR0KHTOWnGLu*:USR0KHTOWnGLuC'],
    // 29 UTF-16 units but 30 bytes: the length rule is on bytes.
    ['multi-byte text', 'USR0KHTOWnGLuC:USR0KHTOWnGLué'],
  ])('drops a malformed payload: %s', (_label, payload) => {
    expect(parseMessage(payload)).toBeNull();
  });
});

describe('newer wins (cache.md §7.2)', () => {
  it('orders by the snowflake bytes within one namespace', () => {
    expect(newer(id('USR', 2n), id('USR', 1n))).toBe(true);
    expect(newer(id('USR', 1n), id('USR', 2n))).toBe(false);
  });

  it('is not newer than itself, so a duplicate apply is stale', () => {
    const v = mintId('USR');
    expect(newer(v, v)).toBe(false);
  });

  it('ignores the namespace: cross-namespace versions compare in mint order', () => {
    // AAA sorts before ZZZ, but the payload alone decides.
    expect(newer(id('AAA', 10n), id('ZZZ', 9n))).toBe(true);
    expect(newer(id('ZZZ', 9n), id('AAA', 10n))).toBe(false);
    expect(newer(id('AAA', 10n), id('ZZZ', 10n))).toBe(false);
    expect(newer(id('ZZZ', 10n), id('AAA', 10n))).toBe(false);
    const early = mintId('ORD');
    const late = mintId('INV');
    expect(newer(late, early)).toBe(true);
  });

  it('compares the payload as bytes, digits below upper case below lower case', () => {
    // Base62 digit order is ASCII order, so byte order is numeric order.
    expect(newer('USR0000000000a', 'USR0000000000Z')).toBe(true);
    expect(newer('USR0000000000Z', 'USR00000000009')).toBe(true);
    expect(newer('USR1000000000000'.slice(0, 14), 'USR0zzzzzzzzzz')).toBe(true);
    expect(newer(id('USR', 62n), id('USR', 61n))).toBe(true);
    expect(newer(id('USR', 2n ** 62n), id('USR', 2n ** 62n - 1n))).toBe(true);
  });
});
