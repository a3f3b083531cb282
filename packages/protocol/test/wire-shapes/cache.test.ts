import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/index.js';
import * as t from '../../src/transitions/index.js';
import { J, G, shapes } from './shape.js';

const shape = shapes('cache');

describe('cache', () => {
  it('cache', () => {
    expect(shape(t.coherenceDrop({ table: 'users', id: G, version: J }))).toEqual({ script: 'coherence_drop', keys: [`ecc:{users}:${G}`], args: [J] });
  });
  it('keyed cache entries [TS]', () => {
    const e = (k: string): string => `ecc:{users}:k:${k}`;
    expect(shape(t.cacheRead({ namespace: 'users', key: 'user:42', token: 'tok', leaseMs: 500 }))).toEqual({
      script: 'cache_read',
      keys: [e('user:42'), 'ecc:{users}:l:user:42'],
      args: ['tok', 500, '0', ''],
    });
    expect(shape(t.cacheRead({ namespace: 'users', key: 'a', leaseMs: 1, hex: true })).args).toEqual(['', 1, '1', '']);
    expect(shape(t.cacheRead({ namespace: 'users', key: 'a', token: 'tok', leaseMs: 1, deadline: 1_700_000_000_000 })).args).toEqual(['tok', 1, '0', '1700000000000']);
    expect(() => t.cacheRead({ namespace: 'users', key: 'a', leaseMs: 1, deadline: 1 })).toThrow(InvalidArgumentError);
    expect(shape(t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 0, maxlen: 100, tags: ['x', 'y'] }))).toEqual({
      script: 'cache_write',
      keys: [e('a'), 'ecc:{users}:l:a', 'ecc:{users}:log', 'ecc:{users}:tag:x', 'ecc:{users}:tag:y'],
      args: ['F', 0, '', 100, 'a', 0, '0'],
    });
    expect(shape(t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, maxlen: 100, graceMs: 3 })).args).toEqual(['F', 5, '', 100, 'a', 3, '0']);
    expect(shape(t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, token: 'tok', maxlen: 100, entryLease: { graceMs: 7 } })).args).toEqual(['F', 5, 'tok', 100, 'a', 7, '1']);
    expect(() => t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, maxlen: 100, graceMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 5, maxlen: 100, entryLease: { graceMs: 7 } })).toThrow(InvalidArgumentError);
    expect(shape(t.cacheRelease({ namespace: 'users', key: 'a', token: 'tok', maxlen: 9 }))).toEqual({
      script: 'cache_release',
      keys: ['ecc:{users}:l:a', 'ecc:{users}:log', e('a')],
      args: ['tok', 9, 'a', '0'],
    });
    expect(shape(t.cacheDelete({ namespace: 'users', keys: ['a', 'b'], version: J, maxlen: 9 }))).toEqual({
      script: 'cache_delete',
      keys: ['ecc:{users}:log', e('a'), e('b')],
      args: [J, 9, '1', 'a', 'b'],
    });
    expect(shape(t.cacheDelete({ namespace: 'users', keys: ['a'], version: J, maxlen: 9, announce: false })).args[2]).toBe('0');
    expect(shape(t.cacheTagDelete({ namespace: 'users', tag: 'x', keys: ['a'], version: J, maxlen: 9 }))).toEqual({
      script: 'cache_tag_delete',
      keys: ['ecc:{users}:log', 'ecc:{users}:tag:x', e('a')],
      args: [J, 9, 'a'],
    });
    expect(shape(t.cacheClear({ namespace: 'users', version: J, maxlen: 9 }))).toEqual({ script: 'cache_clear', keys: ['ecc:{users}:log'], args: [J, 9] });
    expect(shape(t.cachePull({ namespace: 'users', key: 'a', version: J, maxlen: 9 }))).toEqual({
      script: 'cache_pull',
      keys: [e('a'), 'ecc:{users}:log'],
      args: [J, 9, 'a', '0'],
    });
    expect(shape(t.cachePull({ namespace: 'users', key: 'a', version: J, maxlen: 9, hex: true })).args[3]).toBe('1');
    expect(shape(t.cacheExpire({ namespace: 'users', key: 'a', version: J, grace: 500, maxlen: 9 }))).toEqual({
      script: 'cache_expire',
      keys: [e('a'), 'ecc:{users}:log'],
      args: [J, 500, 9, 'a'],
    });
  });
  it('keyed cache keys are validated before anything is built', () => {
    expect(() => t.cacheRead({ namespace: 'users', key: 'a{b}', leaseMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheRead({ namespace: 'users', key: '', leaseMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheRead({ namespace: 'users', key: 'a\nb', leaseMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheWrite({ namespace: 'users', key: 'a', frame: 'F', px: 0, maxlen: 1, tags: ['t}'] })).toThrow(InvalidArgumentError);
    expect(() => t.cacheDelete({ namespace: 'users', keys: [], version: J, maxlen: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheRelease({ namespace: 'users', key: 'a', token: '', maxlen: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cachePull({ namespace: 'users', key: 'a}', version: J, maxlen: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.cacheExpire({ namespace: 'users', key: 'a', version: J, grace: -1, maxlen: 1 })).toThrow(InvalidArgumentError);
  });
});
