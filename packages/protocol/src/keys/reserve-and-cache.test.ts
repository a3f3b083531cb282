import { describe, expect, it } from 'vitest';
import { InvalidNameError, MalformedIdError } from '../errors/validation.js';
import type { BrandedId } from '../ids/branded.js';
import { parseId } from '../ids/guards.js';
import { cacheChannel, cacheKey, cachePrefix, cohQueueName } from './cache-keys.js';
import { isQueueName } from './names.js';
import { BUNDLE_KEY, LOCKS_KEY, RESERVE_PREFIX, VERSION_KEY, migrationKey } from './reserve.js';
import { slot } from './slot.js';

describe('reserve (protocol.md §3.3)', () => {
  it('names the four members', () => {
    expect(VERSION_KEY).toBe('{emq}:version');
    expect(LOCKS_KEY).toBe('{emq}:locks');
    expect(BUNDLE_KEY).toBe('{emq}:bundle');
    expect(migrationKey('orders')).toBe('{emq}:migration:orders');
    expect(RESERVE_PREFIX).toBe('{emq}:');
  });

  it('shares the emq hashtag, which no queue may take', () => {
    expect(new Set([VERSION_KEY, LOCKS_KEY, BUNDLE_KEY, migrationKey('orders')].map(slot))).toEqual(new Set([slot('emq')]));
    expect(isQueueName('emq')).toBe(false);
  });

  it('refuses a bad queue in the migration key', () => {
    expect(() => migrationKey('emq')).toThrow(InvalidNameError);
    expect(() => migrationKey('')).toThrow(InvalidNameError);
  });
});

describe('cache keys (cache.md §2, §7)', () => {
  const id = parseId('USR0KHTOWnGLuC', 'USR');

  it('builds the L2 key, the row prefix, the channel and the coherence queue', () => {
    expect(cacheKey('users', id)).toBe('ecc:{users}:USR0KHTOWnGLuC');
    expect(cachePrefix('users')).toBe('ecc:{users}:');
    expect(cacheChannel('users')).toBe('ecc:{users}:coh');
    expect(cohQueueName('users')).toBe('ecc.coh.users');
  });

  it('puts a table and its channel in one slot', () => {
    expect(slot(cacheKey('users', id))).toBe(slot(cacheChannel('users')));
  });

  it('keeps the coherence queue of the longest table a valid queue name', () => {
    const table = 't'.repeat(120);
    expect(cohQueueName(table)).toHaveLength(128);
    expect(isQueueName(cohQueueName(table))).toBe(true);
  });

  it('refuses bad tables and ids', () => {
    expect(() => cacheKey('x'.repeat(121), id)).toThrow(InvalidNameError);
    expect(() => cacheKey('a}b', id)).toThrow(InvalidNameError);
    expect(() => cacheKey('users', 'USR0KHTOWnGLu' as BrandedId)).toThrow(MalformedIdError);
    expect(() => cacheChannel('')).toThrow(InvalidNameError);
    expect(() => cachePrefix('a b')).toThrow(InvalidNameError);
    expect(() => cohQueueName(null as unknown as string)).toThrow(InvalidNameError);
  });
});
