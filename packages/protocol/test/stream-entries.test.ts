import { describe, expect, it } from 'vitest';
import {
  MalformedReplyError,
  compareStreamIds,
  entryFields,
  parseAutoclaim,
  parseOneStreamRead,
  parseStreamEntries,
  parseStreamRead,
  reads,
} from './support.js';

const A = ['1-0', ['f', 'a', 'g', 'b']];
const B = ['2-5', ['f', 'c']];
const parsedA = { id: '1-0', fields: ['f', 'a', 'g', 'b'] };
const parsedB = { id: '2-5', fields: ['f', 'c'] };

describe('parseStreamEntries (XRANGE/XREVRANGE)', () => {
  it('reads a list of [id, fields], the same in RESP2 and RESP3', () => {
    expect(parseStreamEntries([A, B])).toEqual([parsedA, parsedB]);
    expect(parseStreamEntries([])).toEqual([]);
  });

  it('reads Buffer replies as text', () => {
    expect(parseStreamEntries([[Buffer.from('1-0'), [Buffer.from('f'), Buffer.from('a')]]])).toEqual([{ id: '1-0', fields: ['f', 'a'] }]);
  });

  it.each([
    ['not a list', 'OK'],
    ['null', null],
    ['an entry that is not a pair', [['1-0']]],
    ['an id that is not <ms>-<seq>', [['x', ['f', 'a']]]],
    ['an odd field list', [['1-0', ['f']]]],
    ['a numeric value', [['1-0', ['f', 1]]]],
  ])('refuses %s with MalformedReplyError naming the command', (_what, reply) => {
    expect(() => parseStreamEntries(reply, 'XREVRANGE')).toThrow(MalformedReplyError);
    expect(() => parseStreamEntries(reply, 'XREVRANGE')).toThrow(/malformed XREVRANGE reply/);
  });
});

describe('parseStreamRead (XREAD/XREADGROUP)', () => {
  const resp2 = [['s1', [A]], ['s2', [B]]];
  const flat = ['s1', [A], 's2', [B]];
  const expected = [
    { key: 's1', entries: [parsedA] },
    { key: 's2', entries: [parsedB] },
  ];

  it('reads RESP2 [[key, entries], …]', () => {
    expect(parseStreamRead(resp2)).toEqual(expected);
  });

  it('reads RESP3 under the default mapping (a flat [key, entries, …])', () => {
    expect(parseStreamRead(flat)).toEqual(expected);
  });

  it('reads RESP3 under the resp3 mapping (an object, or a Map)', () => {
    expect(parseStreamRead({ s1: [A], s2: [B] })).toEqual(expected);
    expect(parseStreamRead(new Map([['s1', [A]], ['s2', [B]]]))).toEqual(expected);
  });

  it('reads a timed-out BLOCK (null) as no streams', () => {
    expect(parseStreamRead(null)).toEqual([]);
  });

  it('keeps the null fields of an entry deleted while pending (XREADGROUP of history)', () => {
    expect(parseStreamRead([['s1', [['3-0', null]]]], 'XREADGROUP')).toEqual([{ key: 's1', entries: [{ id: '3-0', fields: null }] }]);
  });

  it.each([
    ['a number', 7],
    ['a string', 'OK'],
    ['an odd flat map', ['s1', [A], 's2']],
    ['a RESP2 member that is not a pair', [['s1']]],
    ['entries that are not a list', ['s1', 'x']],
    ['a key that is not a string', [[1, [A]]]],
  ])('refuses %s', (_what, reply) => {
    expect(() => parseStreamRead(reply, 'XREADGROUP')).toThrow(MalformedReplyError);
  });

  it('parseOneStreamRead answers the entries of the one stream asked for, and refuses another', () => {
    expect(parseOneStreamRead([['s1', [A]]], 's1')).toEqual([parsedA]);
    expect(parseOneStreamRead(['s1', [A]], 's1')).toEqual([parsedA]);
    expect(parseOneStreamRead(null, 's1')).toEqual([]);
    expect(() => parseOneStreamRead(['s2', [A]], 's1')).toThrow(/expected stream s1 only/);
  });
});

describe('parseAutoclaim', () => {
  it('reads the Redis 7 shape [next, entries, deleted]', () => {
    expect(parseAutoclaim(['0-0', [A], ['9-1']])).toEqual({ next: '0-0', entries: [parsedA], deleted: ['9-1'] });
  });

  it('reads the Redis 6.2 shape [next, entries]', () => {
    expect(parseAutoclaim(['5-0', [B]])).toEqual({ next: '5-0', entries: [parsedB], deleted: [] });
  });

  it.each([
    ['a one-element reply', ['0-0']],
    ['a bad cursor', ['x', []]],
    ['deleted ids that are not a list', ['0-0', [], 'x']],
    ['a deleted id that is not an id', ['0-0', [], ['x']]],
    ['null', null],
  ])('refuses %s', (_what, reply) => {
    expect(() => parseAutoclaim(reply)).toThrow(MalformedReplyError);
  });
});

describe('parseStreamInfo (XINFO STREAM)', () => {
  const flat = ['length', 2, 'radix-tree-keys', 1, 'last-generated-id', '5-0', 'max-deleted-entry-id', '3-0', 'entries-added', 4, 'groups', 0, 'first-entry', ['4-0', ['f', 'x']], 'last-entry', ['5-0', ['f', 'y']]];

  it('reads the flat map of RESP2 and of the default RESP3 mapping', () => {
    expect(reads.parseStreamInfo(flat)).toEqual({
      length: 2,
      lastGeneratedId: '5-0',
      maxDeletedEntryId: '3-0',
      firstEntryId: '4-0',
      firstEntry: { id: '4-0', fields: ['f', 'x'] },
      lastEntry: { id: '5-0', fields: ['f', 'y'] },
    });
  });

  it('reads the object of the resp3 mapping, and an empty stream', () => {
    expect(reads.parseStreamInfo({ length: 0, 'last-generated-id': '5-0', 'max-deleted-entry-id': '5-0', 'first-entry': null })).toEqual({
      length: 0,
      lastGeneratedId: '5-0',
      maxDeletedEntryId: '5-0',
      firstEntryId: undefined,
      firstEntry: undefined,
      lastEntry: undefined,
    });
  });

  it('refuses a reply without the fields Echo reads', () => {
    expect(() => reads.parseStreamInfo(['length', 'x'])).toThrow(MalformedReplyError);
    expect(() => reads.parseStreamInfo('OK')).toThrow(MalformedReplyError);
    expect(() => reads.parseStreamInfo([...flat.slice(0, -1), ['5-0']])).toThrow(MalformedReplyError);
  });
});

describe('the stream read builders (argument shapes, no server)', () => {
  it('builds XRANGE and XREVRANGE with their defaults and COUNT', () => {
    expect(reads.xrange({ key: 'k' })).toMatchObject({ command: 'XRANGE', args: ['k', '-', '+'] });
    expect(reads.xrange({ key: 'k', start: '(1-0', end: '5', count: 3 })).toMatchObject({ args: ['k', '(1-0', '5', 'COUNT', '3'] });
    expect(reads.xrevrange({ key: 'k', count: 1 })).toMatchObject({ command: 'XREVRANGE', args: ['k', '+', '-', 'COUNT', '1'] });
    expect(reads.xtop({ key: 'k' })).toMatchObject({ command: 'XREVRANGE', args: ['k', '+', '-', 'COUNT', '1'] });
  });

  it('builds XREAD of one stream, blocking or not', () => {
    expect(reads.xread({ key: 'k', after: '0-0' })).toMatchObject({ command: 'XREAD', args: ['STREAMS', 'k', '0-0'] });
    expect(reads.xread({ key: 'k', after: '7-1', count: 10, blockMs: 500 })).toMatchObject({ args: ['COUNT', '10', 'BLOCK', '500', 'STREAMS', 'k', '7-1'] });
    expect(reads.xinfoStream({ key: 'k' })).toMatchObject({ command: 'XINFO', args: ['STREAM', 'k'] });
  });

  it('refuses bad arguments before anything is sent', () => {
    expect(() => reads.xread({ key: 'k', after: '$' })).toThrow(/after/);
    expect(() => reads.xread({ key: 'k', after: '0-0', count: 0 })).toThrow(/count/);
    expect(() => reads.xread({ key: 'k', after: '0-0', blockMs: 1.5 })).toThrow(/blockMs/);
    expect(() => reads.xrange({ key: '', start: '-' })).toThrow(/key/);
    expect(() => reads.xrange({ key: 'k', start: 'x' })).toThrow(/start/);
  });

  it('pairs each builder with its parser', () => {
    expect(reads.xread({ key: 'k', after: '0-0' }).parse(['k', [A]])).toEqual([parsedA]);
    expect(reads.xtop({ key: 'k' }).parse([])).toBeUndefined();
    expect(reads.xtop({ key: 'k' }).parse([B])).toBe('2-5');
  });
});

describe('stream ids and fields', () => {
  it('orders ids numerically, past what a double holds', () => {
    expect(compareStreamIds('10-0', '9-0')).toBe(1);
    expect(compareStreamIds('1-2', '1-10')).toBe(-1);
    expect(compareStreamIds('18446744073709551615-1', '18446744073709551615-0')).toBe(1);
    expect(compareStreamIds('3-3', '3-3')).toBe(0);
  });

  it('entryFields makes own properties, the last of a repeated field winning', () => {
    const fields = entryFields(['__proto__', 'x', 'a', '1', 'a', '2']);
    expect(Object.keys(fields)).toEqual(['__proto__', 'a']);
    expect(fields.a).toBe('2');
    expect(entryFields(null)).toEqual({});
  });
});
