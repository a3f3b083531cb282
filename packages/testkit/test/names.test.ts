import { describe, expect, it } from 'vitest';
import { NAME_PATTERN, uniqueName } from '../src/index.js';

describe('uniqueName', () => {
  it('prefixes a random base36 suffix and matches the queue-name pattern', () => {
    const name = uniqueName('orders');
    expect(name).toMatch(/^orders-[0-9a-z]+$/);
    expect(name).toMatch(NAME_PATTERN);
    expect(uniqueName()).toMatch(/^t-[0-9a-z]+$/);
  });

  it('does not repeat', () => {
    const names = new Set(Array.from({ length: 10_000 }, () => uniqueName()));
    expect(names.size).toBe(10_000);
  });

  it('rejects a prefix that would make an invalid name', () => {
    expect(() => uniqueName('has space')).toThrow(RangeError);
    expect(() => uniqueName('x'.repeat(128))).toThrow(RangeError);
  });
});
