import { describe, expect, it } from 'vitest';
import { InvalidNameError } from '../errors/validation.js';
import type { NameKind } from '../errors/validation.js';
import {
  assertCacheTable,
  assertDedupId,
  assertQueueName,
  assertRepeatName,
  assertStreamName,
  isCacheTable,
  isDedupId,
  isQueueName,
  isRepeatName,
  isStreamName,
} from './names.js';

interface Grammar {
  readonly kind: NameKind;
  readonly max: number;
  readonly is: (value: unknown) => boolean;
  readonly assert: (value: unknown) => void;
}

const grammars: readonly Grammar[] = [
  { kind: 'queue', max: 128, is: isQueueName, assert: assertQueueName },
  { kind: 'dedup id', max: 255, is: isDedupId, assert: assertDedupId },
  { kind: 'repeat name', max: 255, is: isRepeatName, assert: assertRepeatName },
  { kind: 'stream name', max: 128, is: isStreamName, assert: assertStreamName },
  { kind: 'cache table', max: 120, is: isCacheTable, assert: assertCacheTable },
];

function refusedWith(grammar: Grammar, value: unknown): InvalidNameError {
  try {
    grammar.assert(value);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidNameError);
    return error as InvalidNameError;
  }
  throw new Error(`${grammar.kind} accepted ${String(value)}`);
}

describe.each(grammars)('$kind grammar', (grammar) => {
  it('accepts the whole charset and the length bounds', () => {
    for (const value of ['a', 'Z', '0', '.', '_', '-', 'orders', 'a.b_c-D9', 'x'.repeat(grammar.max)]) {
      expect(grammar.is(value), value).toBe(true);
      expect(() => grammar.assert(value)).not.toThrow();
    }
  });

  it.each(['', 'a b', 'a:b', 'a{b', 'a}b', '{q}', 'a/b', 'a*', 'é', 'a\n', 'a\0'])('refuses %j', (value) => {
    expect(grammar.is(value)).toBe(false);
    const error = refusedWith(grammar, value);
    expect(error.kind).toBe(grammar.kind);
    expect(error.value).toBe(value);
    expect(error.message).toContain(`{1,${grammar.max}}`);
  });

  it('refuses one byte over the cap', () => {
    expect(grammar.is('x'.repeat(grammar.max + 1))).toBe(false);
    refusedWith(grammar, 'x'.repeat(grammar.max + 1));
  });

  it.each([undefined, null, 42, 1n, true, Symbol('q'), ['q'], { q: 1 }, Object.create(null)])('refuses non-string %s', (value) => {
    expect(grammar.is(value)).toBe(false);
    expect(refusedWith(grammar, value).message).toContain('must be a string');
  });
});

describe('queue names', () => {
  it('refuses emq, the reserve hashtag, but not other cases of it', () => {
    expect(isQueueName('emq')).toBe(false);
    expect(refusedWith(grammars[0]!, 'emq').message).toContain('must not be "emq"');
    expect(isQueueName('EMQ')).toBe(true);
    expect(isQueueName('emq2')).toBe(true);
  });

  it('accepts emq as any other kind of name', () => {
    expect(isStreamName('emq')).toBe(true);
    expect(isCacheTable('emq')).toBe(true);
  });
});
