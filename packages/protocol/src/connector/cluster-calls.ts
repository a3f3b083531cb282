import { ConnectionLostError } from '../errors/connection.js';
import type { CallRegistry, Settleable } from './in-flight.js';
import { blockAllowanceMs } from './liveness.js';

/** A call as the cluster client holds it: what the sweep needs to know how long it may wait. */
export interface HeldCall extends Settleable {
  readonly name: string;
  readonly args: readonly unknown[];
}

/** How often the sweep looks at the calls a cluster client holds. */
const SWEEP_MS = 1_000;

/**
 * The calls a cluster client was handed and has not settled. ioredis keeps a cluster's calls in
 * places no socket watch sees (its offline queue while the slots are refreshed, a redirection's
 * retry timer, the queue of a node connection still connecting), and on a loaded machine one of
 * them was seen never to settle: a worker's wake read, and the probe that ends a worker's outage
 * report, each waited for ever. Every call gets a deadline: the wait for a reconnect, plus the
 * silence a live socket may keep, plus what a blocking call asks to wait. A call still unsettled
 * then fails with `ConnectionLostError` (it may or may not have run, as for a socket that dropped).
 *
 * The hot path is one push into each of two arrays; the clock is read once per sweep, and a call
 * is dated by the sweep before it (so failed up to two sweeps late, never early). The clock is the
 * host's monotonic one (`performance.now()`): an application that fakes `Date` (a test moving it a
 * day on) or a wall clock that steps must not age the calls it holds.
 */
export class ClusterCalls implements CallRegistry {
  readonly #waitMs: number;
  #held: HeldCall[] = [];
  #since: number[] = [];
  #now = performance.now();
  #timer: NodeJS.Timeout | undefined;

  /** @param waitMs what any call may wait beyond its own blocking time: reconnect wait plus reply silence. */
  constructor(waitMs: number) {
    this.#waitMs = waitMs + SWEEP_MS;
  }

  /** Registers a call handed to the cluster client. */
  hold(call: HeldCall): void {
    this.#held.push(call);
    if (this.#timer === undefined) {
      this.#now = performance.now();
      this.#timer = setInterval(() => this.#sweep(), SWEEP_MS).unref();
    }
    this.#since.push(this.#now);
  }

  failAll(error: () => Error): void {
    const held = this.#held;
    this.#held = [];
    this.#since = [];
    this.#stop();
    for (const call of held) if (!call.isSettled) call.reject(error());
  }

  #sweep(): void {
    const now = (this.#now = performance.now());
    const held = this.#held;
    const since = this.#since;
    let kept = 0;
    for (let i = 0; i < held.length; i++) {
      const call = held[i] as HeldCall;
      if (call.isSettled) continue;
      const waited = now - (since[i] as number);
      if (waited > this.#waitMs + blockAllowanceMs(call.name, call.args)) {
        call.reject(new ConnectionLostError(`no reply for ${String(Math.round(waited))} ms: the cluster client held the call (a slot refresh or redirection that never ended)`));
        continue;
      }
      held[kept] = call;
      since[kept++] = since[i] as number;
    }
    held.length = kept;
    since.length = kept;
    if (kept === 0) this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
