import { describe, expect, it } from 'vitest';
import { InFlight, type Settleable } from './in-flight.js';

/** A call whose settling the test controls. */
function call(): Settleable & { settle(): void; errors: Error[] } {
  const errors: Error[] = [];
  let settled = false;
  return {
    get isSettled() {
      return settled;
    },
    errors,
    settle: () => (settled = true),
    reject: (error) => {
      settled = true;
      errors.push(error);
    },
  };
}

describe('InFlight', () => {
  it('fails only the calls still waiting, each with its own error, and starts empty again', () => {
    const inFlight = new InFlight();
    const [answered, waiting] = [call(), call()];
    inFlight.add(answered);
    inFlight.add(waiting);
    answered.settle();
    inFlight.failAll(() => new Error('lost'));
    expect(answered.errors).toEqual([]);
    expect(waiting.errors.map((e) => e.message)).toEqual(['lost']);
    expect(inFlight.size).toBe(0);
  });

  it('sweeps settled calls as it grows, so a long-lived socket holds little more than what is open', () => {
    const inFlight = new InFlight();
    const open = call();
    inFlight.add(open);
    for (let i = 0; i < 10_000; i++) {
      const done = call();
      inFlight.add(done);
      done.settle();
    }
    expect(inFlight.size).toBeLessThanOrEqual(512);
    inFlight.failAll(() => new Error('lost'));
    expect(open.errors).toHaveLength(1);
  });
});
