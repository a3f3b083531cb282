import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionLostError } from '../errors/connection.js';
import { ClusterCalls, type HeldCall } from './cluster-calls.js';
import { InFlight } from './in-flight.js';

/** A call whose settling the test controls (a command name and arguments for the cluster sweep). */
function call(name = 'GET', ...args: unknown[]): HeldCall & { settle(): void; errors: Error[] } {
  const errors: Error[] = [];
  let settled = false;
  return {
    name,
    args,
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
    expect(inFlight.size).toBeLessThanOrEqual(64);
    inFlight.failAll(() => new Error('lost'));
    expect(open.errors).toHaveLength(1);
  });
});

describe('ClusterCalls', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails a call the cluster client holds past its deadline, never before it, and leaves answered calls alone', () => {
    const calls = new ClusterCalls(10_000);
    const [held, answered] = [call('EVALSHA', 'sha', '1', 'k'), call('GET', 'k')];
    calls.hold(held);
    calls.hold(answered);
    answered.settle();
    vi.advanceTimersByTime(10_000);
    expect(held.errors).toEqual([]);
    vi.advanceTimersByTime(2_000);
    expect(held.errors).toHaveLength(1);
    expect(held.errors[0]).toBeInstanceOf(ConnectionLostError);
    expect(answered.errors).toEqual([]);
  });

  it("gives a blocking call its own wait on top, and never fails one that blocks for ever", () => {
    const calls = new ClusterCalls(1_000);
    const read = call('XREAD', 'BLOCK', '5000', 'STREAMS', 's', '$');
    const forever = call('BLPOP', 'l', '0');
    calls.hold(read);
    calls.hold(forever);
    vi.advanceTimersByTime(6_000);
    expect(read.errors).toEqual([]);
    vi.advanceTimersByTime(2_000);
    expect(read.errors).toHaveLength(1);
    vi.advanceTimersByTime(600_000);
    expect(forever.errors).toEqual([]);
    calls.failAll(() => new Error('closed'));
    expect(forever.errors.map((e) => e.message)).toEqual(['closed']);
  });

  it('keeps no timer once nothing is held, and dates a call from when it came after an idle spell', () => {
    const calls = new ClusterCalls(1_000);
    const first = call('GET', 'a');
    calls.hold(first);
    first.settle();
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    const late = call('GET', 'b');
    calls.hold(late);
    vi.advanceTimersByTime(1_000);
    expect(late.errors).toEqual([]);
    vi.advanceTimersByTime(2_000);
    expect(late.errors).toHaveLength(1);
  });
});
