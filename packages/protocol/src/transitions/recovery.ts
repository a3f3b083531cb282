import type { JobId } from '../ids/branded.js';
import { GoneError } from '../errors/wire.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { idArg, int, whole } from './values.js';
import { decimals, texts, tuple } from '../reply-shapes.js';

/** `promote`: moves up to `limit` due scheduled jobs to their lane or to pending; answers how many (queue.md §8.2). */
export function promote(input: { readonly queue: string; readonly limit: number }): Transition<number> {
  return transition(bind(scripts().promote, { scope: { q: input.queue }, args: { limit: whole('limit', input.limit, 1) } }), int);
}

/** What {@link promoteNext} did, and when the schedule next falls due. */
export interface PromoteNext {
  readonly moved: number;
  /** ms (server clock) until the earliest job left in the schedule is due; 0 when due already; -1 when none. */
  readonly nextInMs: number;
}

/**
 * `promote_next` [TS]: promotes as {@link promote} does, then answers how long until the earliest
 * remaining scheduled job falls due, so a worker can wake at that moment.
 */
export function promoteNext(input: { readonly queue: string; readonly limit: number }): Transition<PromoteNext> {
  return checkedTransition(bind(scripts().promote_next, { scope: { q: input.queue }, args: { limit: whole('limit', input.limit, 1) } }), (command, reply) => {
    const [moved, next] = decimals(command, reply, reply, 'the reply');
    return { moved: moved ?? 0, nextInMs: next ?? -1 };
  });
}

/** How {@link rescheduleJob} ended: moved, not in the schedule (nothing changed), or no such job. */
export type Rescheduled = 'moved' | 'not_scheduled' | 'gone';

const RESCHEDULED: Readonly<Record<number, Rescheduled>> = { 1: 'moved', 0: 'not_scheduled', [-1]: 'gone' };

/**
 * `reschedule_job` [TS]: releases one scheduled job now (`inMs` omitted) or sets its due time to
 * server now + `inMs`. A job that became the earliest pushes a due hint on the wake list.
 */
export function rescheduleJob(input: { readonly queue: string; readonly id: JobId | string; readonly inMs?: number }): Transition<Rescheduled> {
  const id = idArg(input.id);
  const [mode, ms] = input.inMs === undefined ? ['now', 0] : ['in', whole('delayMs', input.inMs, 0)];
  return transition(bind(scripts().reschedule_job, { scope: { q: input.queue, id }, args: { id, mode, ms } }), (reply) => RESCHEDULED[int(reply)] ?? 'gone');
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
export function sweepStalled(input: {
  readonly queue: string;
  readonly maxStalled: number;
  readonly limit: number;
  /** Declare the flow outbox, so a dead child of a parent in another queue leaves a fail entry [TS]. */
  readonly outbox?: boolean;
}): Transition<StalledSweep> {
  const call = bind(scripts().sweep_stalled, {
    scope: { q: input.queue },
    args: { max_stalled: whole('maxStalled', input.maxStalled, 1), limit: whole('limit', input.limit, 1) },
    optional: input.outbox === true,
  });
  return checkedTransition(call, (command, reply) => {
    const [recovered, dead] = tuple(command, reply, reply, 2, 'the reply');
    return { recovered: texts(command, reply, recovered, 'the recovered') as JobId[], dead: texts(command, reply, dead, 'the dead') as JobId[] };
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

/**
 * `reprocess_completed` [TS]: brings a retained completed job back to pending (its lane when
 * grouped), clearing `finished_at` and `result` (BullMQ's `job.retry('completed')`). The reply
 * reader throws GoneError when the job does not exist; a job in any other state is refused with
 * StateError `not completed`.
 */
export function reprocessCompleted(input: { readonly queue: string; readonly id: JobId | string }): Transition<void> {
  const id = idArg(input.id);
  return transition(bind(scripts().reprocess_completed, { scope: { q: input.queue, id }, args: { id } }), (reply) => {
    if (int(reply) === -1) throw new GoneError();
  });
}

/**
 * `retry_dead` [TS]: brings up to `limit` dead jobs back to pending (their lane when grouped),
 * clearing `last_error`; answers how many moved. The bulk, bounded form of {@link reprocess}.
 */
export function retryDead(input: { readonly queue: string; readonly limit: number }): Transition<number> {
  return transition(bind(scripts().retry_dead, { scope: { q: input.queue }, args: { limit: whole('limit', input.limit, 1) } }), int);
}

/**
 * `clean_dead` [TS]: deletes the given dead jobs with their rows and sub-keys; an id no longer dead
 * is left alone. Answers how many were deleted.
 */
export function cleanDead(input: { readonly queue: string; readonly ids: readonly (JobId | string)[] }): Transition<number> {
  const ids = input.ids.map(idArg);
  return transition(bind(scripts().clean_dead, { scope: { q: input.queue }, restArgs: ids }), int);
}

/**
 * `clean_completed` [TS]: deletes the given retained completed jobs with their rows and sub-keys; an
 * id whose row is no longer completed only leaves the index. Answers how many were deleted.
 */
export function cleanCompleted(input: { readonly queue: string; readonly ids: readonly (JobId | string)[] }): Transition<number> {
  const ids = input.ids.map(idArg);
  return transition(bind(scripts().clean_completed, { scope: { q: input.queue }, restArgs: ids }), int);
}
