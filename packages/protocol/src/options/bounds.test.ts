import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/validation.js';
import { MAX_SPAN_MS, MAX_TIMER_MS, OptionRangeError, checkTimeBound } from './bounds.js';
import { strictOptions } from './strict.js';

describe('time bounds', () => {
  const check = strictOptions('enqueue options', { known: ['delayMs', 'runAt', 'blockMs', 'name'], bounds: { delayMs: 'span', runAt: 'instant', blockMs: 'timer' } });

  it('admits each bound itself', () => {
    expect(() => check({ delayMs: MAX_SPAN_MS, blockMs: MAX_TIMER_MS, runAt: Date.now() + MAX_SPAN_MS - 60_000 })).not.toThrow();
    expect(() => check({ runAt: new Date(Date.now() + MAX_SPAN_MS - 60_000) })).not.toThrow();
  });

  it('refuses past the bound, typed, naming the option and the bound', () => {
    let error: unknown;
    try {
      check({ delayMs: 1e15 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OptionRangeError);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as OptionRangeError).option).toBe('delayMs');
    expect((error as OptionRangeError).max).toBe(MAX_SPAN_MS);
    expect((error as Error).message).toBe('invalid enqueue options.delayMs: 1000000000000000 ms is past the bound of 315360000000 ms (10 years)');
    expect(() => check({ delayMs: MAX_SPAN_MS + 1 })).toThrow(OptionRangeError);
    expect(() => check({ blockMs: MAX_TIMER_MS + 1 })).toThrow('2147483647 ms');
    expect(() => check({ runAt: Date.now() + MAX_SPAN_MS + 60_000 })).toThrow(OptionRangeError);
    expect(() => check({ runAt: new Date(Date.now() + MAX_SPAN_MS + 60_000) })).toThrow('ahead of now');
  });

  it('leaves what is not a finite number to the option itself', () => {
    expect(() => check({ delayMs: Infinity, runAt: 'soon' as unknown as number, blockMs: Number.NaN })).not.toThrow();
    expect(() => checkTimeBound('x', 'ttl', undefined, 'span')).not.toThrow();
  });

  it('refuses a bound on a key it does not know, when built', () => {
    expect(() => strictOptions('x', { known: ['a'], bounds: { b: 'span' } })).toThrow(TypeError);
  });
});
