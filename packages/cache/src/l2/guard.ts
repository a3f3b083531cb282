import { L2UnavailableError } from '../base/errors.js';
import { Breaker, BreakerOpen, type OutageOptions, withTimeout } from './breaker.js';

/** What the guard reports to its namespace. */
export interface GuardHooks {
  /** The breaker opened: L2 is believed down. */
  opened(): void;
  /** The breaker closed again after a successful probe. */
  closed(): void;
  /** One L2 call failed (timed out, errored or was refused by the open breaker). */
  failed(op: string, error: unknown): void;
}

/**
 * Every L2 call of a namespace goes through here. Without the outage mode it is a pass-through,
 * so an L2 error reaches the caller as it is. With it, each call is bounded by `l2TimeoutMs`,
 * counted by the breaker, and refused at once while the breaker is open.
 */
export class L2Guard {
  readonly breaker: Breaker | null;
  readonly #timeoutMs: number;
  readonly #hooks: GuardHooks;

  constructor(outage: Required<OutageOptions> | null, now: () => number, hooks: GuardHooks) {
    this.#hooks = hooks;
    this.#timeoutMs = outage?.l2TimeoutMs ?? 0;
    this.breaker = outage === null ? null : new Breaker(outage.failures, outage.openMs, now, () => hooks.opened());
  }

  /** Whether failures fall back (the outage mode is on). */
  get fallsBack(): boolean {
    return this.breaker !== null;
  }

  /** A read's L2 call; in the outage mode a failure rejects and the caller falls back. */
  call<R>(op: string, call: () => Promise<R>): Promise<R> {
    const breaker = this.breaker;
    // Outside the outage mode the call's own promise is the answer: no async frame around it (one
    // promise and two microtask hops less on every L2 read and write). A synchronous throw still rejects.
    if (breaker === null) {
      try {
        return call();
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return this.#guarded(breaker, op, call);
  }

  async #guarded<R>(breaker: Breaker, op: string, call: () => Promise<R>): Promise<R> {
    // Refused calls are fallbacks, not failures: they are not counted again.
    if (!breaker.allow()) throw new BreakerOpen();
    try {
      const result = await withTimeout(call(), this.#timeoutMs);
      const wasOpen = !breaker.closed;
      breaker.success();
      if (wasOpen) this.#hooks.closed();
      return result;
    } catch (error) {
      breaker.failure();
      this.#hooks.failed(op, error);
      throw error;
    }
  }

  /**
   * A write's L2 call: outside the outage mode its error passes through; inside it `onFallback`
   * runs and the caller gets {@link L2UnavailableError}.
   */
  write<R>(op: string, call: () => Promise<R>, onFallback?: () => void): Promise<R> {
    // Outside the outage mode an error passes through as it is: nothing to wrap.
    if (this.breaker === null) return this.call(op, call);
    return this.#fallingBack(op, call, onFallback);
  }

  async #fallingBack<R>(op: string, call: () => Promise<R>, onFallback: (() => void) | undefined): Promise<R> {
    try {
      return await this.call(op, call);
    } catch (error) {
      onFallback?.();
      throw new L2UnavailableError(op, error instanceof BreakerOpen ? 'the circuit breaker is open' : error);
    }
  }
}
