import type { JobId } from '../ids/branded.js';
import { GoneError } from '../errors/wire.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { transition, type Transition } from './transition.js';
import { idArg, int, whole } from './values.js';

/** `promote`: moves up to `limit` due scheduled jobs to their lane or to pending; answers how many (queue.md §8.2). */
export function promote(input: { readonly queue: string; readonly limit: number }): Transition<number> {
  return transition(bind(scripts().promote, { scope: { q: input.queue }, args: { limit: whole('limit', input.limit, 1) } }), int);
}

/** `reap`: recovers up to `limit` expired leases; answers how many (queue.md §6.1). */
export function reap(input: { readonly queue: string; readonly limit: number }): Transition<number> {
  return transition(bind(scripts().reap, { scope: { q: input.queue }, args: { limit: whole('limit', input.limit, 1) } }), int);
}

/** What one stalled sweep did. */
export interface StalledSweep {
  readonly recovered: JobId[];
  readonly dead: JobId[];
}

/**
 * `sweep_stalled`: counts each expired lease as a stall; below `maxStalled` the job is recovered, at
 * it the job is dead-lettered with `last_error` "stalled" (queue.md §6.2).
 */
export function sweepStalled(input: { readonly queue: string; readonly maxStalled: number; readonly limit: number }): Transition<StalledSweep> {
  const call = bind(scripts().sweep_stalled, {
    scope: { q: input.queue },
    args: { max_stalled: whole('maxStalled', input.maxStalled, 1), limit: whole('limit', input.limit, 1) },
  });
  return transition(call, (reply) => {
    const [recovered, dead] = reply as [JobId[], JobId[]];
    return { recovered, dead };
  });
}

/** `greap_group`: recovers expired leases of one lane only (queue.md §5.6). */
export function reapGroup(input: { readonly queue: string; readonly group: string; readonly limit: number }): Transition<number> {
  const g = idArg(input.group);
  return transition(bind(scripts().greap_group, { scope: { q: input.queue, g }, args: { g, limit: whole('limit', input.limit, 1) } }), int);
}

/**
 * `reprocess`: brings a dead job back to pending (its lane when grouped), clearing `last_error`
 * (queue.md §4.3). The reply reader throws GoneError when the job does not exist.
 */
export function reprocess(input: { readonly queue: string; readonly id: JobId | string }): Transition<void> {
  const id = idArg(input.id);
  return transition(bind(scripts().reprocess, { scope: { q: input.queue, id }, args: { id } }), (reply) => {
    if (int(reply) === -1) throw new GoneError();
  });
}
