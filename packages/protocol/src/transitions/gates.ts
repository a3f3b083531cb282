import { InvalidArgumentError } from '../errors/validation.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { transition, type Transition } from './transition.js';
import { whole } from './values.js';

/** A rate limit: at most `max` claimed jobs per window of `durationMs`. */
export interface RateLimit {
  readonly max: number;
  readonly durationMs: number;
}

/** Input of {@link setGates}: each gate given is set (a number or limit) or cleared (`null`); one left out is kept. */
export interface GatesInput {
  readonly queue: string;
  /** The cap on active jobs across every worker, or `null` to lift it. */
  readonly concurrency?: number | null;
  /** The queue's rate limit, or `null` to lift it. */
  readonly limiter?: RateLimit | null;
}

/**
 * `gate_set` [TS]: sets or clears the claim gates in meta that every claim enforces on the server:
 * the global concurrency cap (`meta.concurrency`) and the rate limit (`meta.max` per
 * `meta.duration` ms). A changed limit starts a fresh window.
 */
export function setGates(input: GatesInput): Transition<void> {
  let concurrency = '';
  if (input.concurrency === null) concurrency = '0';
  else if (input.concurrency !== undefined) concurrency = String(whole('concurrency', input.concurrency, 1));
  let max = '';
  let duration = '';
  if (input.limiter === null) max = '0';
  else if (input.limiter !== undefined) {
    // Checked as unknown: JavaScript callers are not held to the type.
    const limiter: unknown = input.limiter;
    if (typeof limiter !== 'object') throw new InvalidArgumentError('limiter', 'must be { max, durationMs } or null');
    max = String(whole('limiter.max', input.limiter.max, 1));
    duration = String(whole('limiter.durationMs', input.limiter.durationMs, 1));
  }
  const call = bind(scripts().gate_set, { scope: { q: input.queue }, args: { concurrency, max, duration } });
  return transition(call, () => undefined);
}

/**
 * `rate_limit` [TS]: closes the queue's rate window for `ms` from now; answers false when the queue
 * has no rate limit (nothing written).
 */
export function rateLimit(input: { readonly queue: string; readonly ms: number }): Transition<boolean> {
  const call = bind(scripts().rate_limit, { scope: { q: input.queue }, args: { ms: whole('ms', input.ms, 1) } });
  return transition(call, (reply) => Number(reply) === 1);
}

/**
 * `rate_reset` [TS]: opens the queue's rate window now (the limit itself stays); answers whether a
 * window was open.
 */
export function rateReset(input: { readonly queue: string }): Transition<boolean> {
  return transition(bind(scripts().rate_reset, { scope: { q: input.queue } }), (reply) => Number(reply) === 1);
}
