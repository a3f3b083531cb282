import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClusterCalls, type HeldCall } from '../src/connector/cluster-calls.js';

/** A call the cluster client holds and never settles; what the sweep did to it. */
function held(): HeldCall & { readonly errors: Error[] } {
  const errors: Error[] = [];
  return { name: 'GET', args: ['k'], isSettled: false, errors, reject: (error) => void errors.push(error) };
}

const realDelay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('ClusterCalls: the deadline of a call the cluster client holds', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is timed on the host clock: moving a faked Date a day on does not fail a call held for a moment', async () => {
    const calls = new ClusterCalls(60_000);
    const call = held();
    calls.hold(call);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 86_400_000);
    // Two sweeps (one a second, on a real timer): before, each read the faked Date and failed the call.
    await realDelay(2_500);
    expect(call.errors).toEqual([]);
    calls.failAll(() => new Error('done'));
    expect(call.errors.map((e) => e.message)).toEqual(['done']);
  });

  it('still fails a call held past its deadline', async () => {
    // A zero wait leaves one sweep interval: the call is failed by the second sweep after it was held.
    const calls = new ClusterCalls(0);
    const call = held();
    calls.hold(call);
    await vi.waitFor(() => expect(call.errors).toHaveLength(1), { timeout: 20_000, interval: 100 });
    expect(call.errors[0]?.message).toMatch(/^no reply for \d+ ms: the cluster client held the call/);
  });
});
