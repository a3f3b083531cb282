import { describe, expect, it } from 'vitest';
import { TypedEmitter } from './typed-emitter.js';

interface Events {
  readonly tick: number;
  readonly done: undefined;
}

/** A test subclass that can fire its events. */
class Ticker extends TypedEmitter<Events> {
  fire<K extends keyof Events>(event: K, payload: Events[K]): void {
    this.emit(event, payload);
  }
  clear(): void {
    this.removeAllListeners();
  }
}

describe('TypedEmitter', () => {
  it('calls listeners in order; off and the remover really remove; adding twice is once', () => {
    const ticker = new Ticker();
    const seen: string[] = [];
    const a = (n: number): void => void seen.push(`a${n}`);
    const b = (n: number): void => void seen.push(`b${n}`);
    ticker.on('tick', a);
    ticker.on('tick', a);
    const removeB = ticker.on('tick', b);
    ticker.fire('tick', 1);
    expect(ticker.off('tick', a)).toBe(true);
    expect(ticker.off('tick', a)).toBe(false);
    ticker.fire('tick', 2);
    removeB();
    ticker.fire('tick', 3);
    expect(seen).toEqual(['a1', 'b1', 'b2']);
    expect(ticker.listenerCount()).toBe(0);
  });

  it('once fires a single time, and can be removed before it fires', () => {
    const ticker = new Ticker();
    const seen: number[] = [];
    ticker.once('tick', (n) => seen.push(n));
    const cancel = ticker.once('done', () => seen.push(-1));
    cancel();
    ticker.fire('tick', 1);
    ticker.fire('tick', 2);
    ticker.fire('done', undefined);
    expect(seen).toEqual([1]);
  });

  it('a throwing listener reaches the error handler and the others still run', () => {
    const errors: [unknown, string][] = [];
    const ticker = new (class extends Ticker {})((error, event) => errors.push([error, event]));
    const seen: number[] = [];
    ticker.on('tick', () => {
      throw new Error('bad listener');
    });
    ticker.on('tick', (n) => seen.push(n));
    ticker.fire('tick', 7);
    expect(seen).toEqual([7]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.[1]).toBe('tick');
  });

  it('a listener may remove itself or another while an event is delivered', () => {
    const ticker = new Ticker();
    const seen: string[] = [];
    const second = (): void => void seen.push('second');
    const first = (): void => {
      seen.push('first');
      ticker.off('tick', first);
      ticker.off('tick', second);
    };
    ticker.on('tick', first);
    ticker.on('tick', second);
    ticker.fire('tick', 1);
    ticker.fire('tick', 2);
    expect(seen).toEqual(['first', 'second']);
    ticker.on('tick', first);
    ticker.clear();
    expect(ticker.listenerCount('tick')).toBe(0);
  });
});
