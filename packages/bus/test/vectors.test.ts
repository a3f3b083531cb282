import { InvalidArgumentError, KindError, MalformedIdError, decodeId, snowflakeParts, writes } from '@echo/protocol/bus';
import { describe, expect, it } from 'vitest';
import { eventNameOf, maxidCeil, minidFloor, xaddId } from '../src/wire.js';
import { entryFromPairs, flattenFields } from '../src/record/fields.js';
import { instantMs } from '../src/record/instant.js';
import { trimInput, type TrimWindow } from '../src/retention/trim.js';

/** The XTRIM arguments after the key a window sends. */
function trimArgs(window: TrimWindow): readonly unknown[] {
  return writes.xtrim({ key: 'k', ...trimInput(window) }).args.slice(1);
}

describe('bus.md §3: EVT ids and the XADD id', () => {
  it('EVT000xY9Wvvcd → 1704117200000-1620567 (ts 50000000, node 395, seq 2647)', () => {
    const s = decodeId('EVT000xY9Wvvcd').snowflake;
    expect(s).toBe(209715201620567n);
    expect(snowflakeParts(s)).toMatchObject({ ts: 50000000n, node: 395, seq: 2647 });
    expect(xaddId('EVT000xY9Wvvcd')).toBe('1704117200000-1620567');
  });

  it('EVT000004Zqs4W → 1704067201000-0 (ts 1000, node 0, seq 0)', () => {
    expect(decodeId('EVT000004Zqs4W').snowflake).toBe(4194304000n);
    expect(xaddId('EVT000004Zqs4W')).toBe('1704067201000-0');
  });

  it('ORD000xY9Wvvcd is refused with KindError', () => {
    expect(() => xaddId('ORD000xY9Wvvcd')).toThrow(KindError);
  });

  it('not-branded is refused with MalformedIdError', () => {
    expect(() => xaddId('not-branded')).toThrow(MalformedIdError);
  });

  it('keeps the full 22-bit tail: the largest node and sequence give 4194303', () => {
    expect(xaddId('EVT' + 'AzL8n0Y58m7')).toBe(`${(2n ** 41n - 1n + 1704067200000n).toString()}-4194303`);
  });
});

describe('bus.md §5: the MINID floor', () => {
  it('instant 2024-01-01T00:00:01.000Z → floor 1704067201000-0', () => {
    expect(trimArgs({ minid: new Date('2024-01-01T00:00:01.000Z') })).toEqual(['MINID', '~', '1704067201000-0']);
    expect(trimArgs({ minid: 1704067201000, approx: false })).toEqual(['MINID', '=', '1704067201000-0']);
  });

  it('MAXLEN takes ~ by default and = on request', () => {
    expect(trimArgs({ maxlen: 0 })).toEqual(['MAXLEN', '~', '0']);
    expect(trimArgs({ maxlen: 5, approx: false })).toEqual(['MAXLEN', '=', '5']);
  });

  it('refuses malformed windows', () => {
    for (const bad of [{ maxlen: -1 }, { maxlen: 1.5 }, { minid: -5 }, { minid: new Date(Number.NaN) }, {}, { maxlen: 1, minid: 1 }, { maxlen: 1, approx: 'yes' }]) {
      expect(() => trimArgs(bad as never), JSON.stringify(bad)).toThrow(InvalidArgumentError);
    }
  });
});

describe('bus.md §6: time-travel bounds', () => {
  it('t = 2024-01-01T00:00:01.000Z gives floor 1704067201000-0 and ceiling 1704067201000-4194303', () => {
    const t = new Date('2024-01-01T00:00:01.000Z');
    expect(minidFloor(t)).toBe('1704067201000-0');
    expect(maxidCeil(t)).toBe('1704067201000-4194303');
    expect(minidFloor(1704067201000)).toBe('1704067201000-0');
  });

  it('refuses instants that are not whole, non-negative milliseconds', () => {
    for (const bad of [Number.NaN, 1.5, -1, new Date('nope'), '1704067201000']) {
      expect(() => instantMs(bad as never), String(bad)).toThrow(InvalidArgumentError);
    }
  });
});

describe('record fields', () => {
  it('are flat strings, with `id` reserved', () => {
    expect(flattenFields({ a: '1', b: '' })).toEqual(['a', '1', 'b', '']);
    expect(() => flattenFields({ id: 'x' })).toThrow(/reserved/);
    expect(() => flattenFields({ n: 1 } as never)).toThrow(InvalidArgumentError);
    expect(() => flattenFields({ nested: { a: '1' } } as never)).toThrow(InvalidArgumentError);
    expect(() => flattenFields(['a'] as never)).toThrow(InvalidArgumentError);
    expect(() => flattenFields(null as never)).toThrow(InvalidArgumentError);
  });

  it('read back with the branded id from the `id` field, even a field named __proto__', () => {
    const [id, fields] = entryFromPairs('1-0', ['id', 'EVT000004Zqs4W', '__proto__', 'x', 'k', 'v']);
    expect(id).toBe('EVT000004Zqs4W');
    expect(Object.keys(fields)).toEqual(['__proto__', 'k']);
    expect(fields.k).toBe('v');
    expect(() => entryFromPairs('1-0', ['k', 'v'])).toThrow(MalformedIdError);
    expect(() => entryFromPairs('1-0', ['id', 'JOB000004Zqs4W'])).toThrow(KindError);
  });
});

describe('bus.md §1.3: event names off the wire', () => {
  it('reads the name whatever the key order, and reports anything else as unknown', () => {
    expect(eventNameOf('{"job":"JOB000004Zqs4W","event":"completed"}')).toBe('completed');
    expect(eventNameOf('{"event":"progress","job":"JOB000004Zqs4W","progress":"50"}')).toBe('progress');
    expect(eventNameOf('{"event":"exploded","job":"JOB000004Zqs4W"}')).toBe('unknown');
    // Not a flat object of strings, so the scan fallback reads the name.
    expect(eventNameOf('{"event" : "failed","job":"JOB000004Zqs4W","n":1}')).toBe('failed');
    expect(eventNameOf('not json')).toBe('unknown');
    expect(eventNameOf('{"event":"constructor"}')).toBe('unknown');
  });
});
