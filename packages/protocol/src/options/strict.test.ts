import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/validation.js';
import { UnknownOptionError, ValueTooLargeError, checkValueSize, resolveValueLimit, strictOptions } from './strict.js';

describe('strictOptions', () => {
  const check = strictOptions('enqueue options', { known: ['delayMs', 'id'], hints: { delay: 'use delayMs (milliseconds) or runAt' } });

  it('passes known keys, undefined and null', () => {
    expect(() => check({ delayMs: 5, id: undefined })).not.toThrow();
    expect(() => check(undefined)).not.toThrow();
    expect(() => check(null)).not.toThrow();
  });

  it('refuses a peer name with its hint, typed and naming the key', () => {
    const error = (() => {
      try {
        check({ delay: 1000 });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as UnknownOptionError).option).toBe('delay');
    expect((error as UnknownOptionError).hint).toBe('use delayMs (milliseconds) or runAt');
    expect((error as Error).message).toBe('invalid enqueue options.delay: is not an option here; use delayMs (milliseconds) or runAt');
  });

  it('refuses an unknown key set to undefined, listing the known ones', () => {
    expect(() => check({ bogus: undefined })).toThrow('invalid enqueue options.bogus: is not an option here (known: delayMs, id)');
  });

  it('does not treat an inherited name like constructor as a hint', () => {
    expect(() => check({ constructor: 1 })).toThrow('(known: delayMs, id)');
  });

  it('refuses a non-object', () => {
    expect(() => check(5 as unknown as object)).toThrow(InvalidArgumentError);
    expect(() => check([])).toThrow('must be an options object');
  });
});

describe('value caps', () => {
  it('checks UTF-8 bytes of text and the length of bytes', () => {
    expect(() => checkValueSize('stream entry', 'x'.repeat(10), 10)).not.toThrow();
    expect(() => checkValueSize('stream entry', 'é'.repeat(6), 10)).toThrow(ValueTooLargeError);
    expect(() => checkValueSize('cache value', new Uint8Array(11), 10)).toThrow('cache value is 11 bytes encoded; at most 10 are admitted');
    expect(() => checkValueSize('cache value', new Uint8Array(11), Infinity)).not.toThrow();
  });

  it('resolves a limit option', () => {
    expect(resolveValueLimit('maxValueBytes', undefined)).toBe(1_048_576);
    expect(resolveValueLimit('maxValueBytes', Infinity)).toBe(Infinity);
    expect(() => resolveValueLimit('maxValueBytes', 0)).toThrow(InvalidArgumentError);
  });
});
