import { describe, expect, it } from 'vitest';
import { UnknownOptionError, strictOptions } from './strict.js';
import { editDistance, nearestKey } from './suggest.js';

function refusal(run: () => void): UnknownOptionError {
  try {
    run();
  } catch (caught) {
    if (caught instanceof UnknownOptionError) return caught;
    throw caught;
  }
  throw new Error('not refused');
}

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('maxAttempts', 'maxAtempts')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('prefers the same name in another case, then the nearest within reach', () => {
    expect(nearestKey('delayms', ['delayMs', 'delay'])).toBe('delayMs');
    expect(nearestKey('concurency', ['count', 'concurrency'])).toBe('concurrency');
    expect(nearestKey('zzzzzz', ['concurrency'])).toBeUndefined();
    expect(nearestKey('ix', ['id'])).toBeUndefined();
  });

  it('names the suggestion in the error, with the known keys', () => {
    const check = strictOptions('Worker.start options', { known: ['concurrency', 'leaseMs'] });
    const error = refusal(() => check({ concurency: 4 }));
    expect(error.suggestion).toBe('concurrency');
    expect(error.message).toBe('invalid Worker.start options.concurency: is not an option here; did you mean concurrency? (known: concurrency, leaseMs)');
  });

  it('keeps a peer hint over a suggestion', () => {
    const check = strictOptions('enqueue options', { known: ['delayMs'], hints: { delay: 'use delayMs' } });
    const error = refusal(() => check({ delay: 5 }));
    expect(error.hint).toBe('use delayMs');
    expect(error.suggestion).toBeUndefined();
  });
});
