import { InvalidArgumentError } from '../errors/validation.js';
import type { JobId } from '../ids/branded.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { transition, type Transition } from './transition.js';
import { idArg, int, whole } from './values.js';

/** What every lane control names. */
export interface LaneInput {
  readonly queue: string;
  /** The lane's group id. */
  readonly group: string;
}

const done = (): void => undefined;

/** `glimit`: caps a lane's in-flight jobs; lowering it parks the lane, raising it may return it (queue.md §5.3). */
export function laneLimit(input: LaneInput & { readonly limit: number }): Transition<void> {
  const g = idArg(input.group);
  return transition(bind(scripts().glimit, { scope: { q: input.queue, g }, args: { g, n: whole('limit', input.limit, 1) } }), done);
}

/** A lane's own rate limit: at most `max` of its jobs claimed per window of `durationMs`. */
export interface LaneRateLimit {
  /** Jobs of the lane claimed per window (>= 1). */
  readonly max: number;
  /** The window in ms (>= 1); it opens at the first claim after the last one ended. */
  readonly durationMs: number;
}

/**
 * `grate` [TS]: sets a lane's own rate limit, enforced by the lane claims on top of the queue's
 * limiter, or lifts it (`null`). Setting one starts a fresh window.
 */
export function laneRateLimit(input: LaneInput & { readonly limit: LaneRateLimit | null }): Transition<void> {
  const g = idArg(input.group);
  let max = '0';
  let duration = '';
  if (input.limit !== null) {
    // Checked as unknown: JavaScript callers are not held to the type.
    const limit: unknown = input.limit;
    if (typeof limit !== 'object' || limit === null) throw new InvalidArgumentError('limit', 'must be { max, durationMs } or null');
    max = String(whole('limit.max', input.limit.max, 1));
    duration = String(whole('limit.durationMs', input.limit.durationMs, 1));
  }
  return transition(bind(scripts().grate, { scope: { q: input.queue }, args: { g, max, duration } }), done);
}

/** `gpause`: takes a lane out of rotation; its backlog and in-flight work are untouched (queue.md §5.4). */
export function lanePause(input: LaneInput): Transition<void> {
  const g = idArg(input.group);
  return transition(bind(scripts().gpause, { scope: { q: input.queue }, args: { g } }), done);
}

/** `gresume`: returns a paused lane to rotation, waking a consumer if it has work. */
export function laneResume(input: LaneInput): Transition<void> {
  const g = idArg(input.group);
  return transition(bind(scripts().gresume, { scope: { q: input.queue, g }, args: { g } }), done);
}

/** `gweight`: sets how many jobs a weighted claim serves from this lane per rotation (queue.md §5.5). */
export function laneWeight(input: LaneInput & { readonly weight: number }): Transition<void> {
  const g = idArg(input.group);
  return transition(bind(scripts().gweight, { scope: { q: input.queue }, args: { g, w: whole('weight', input.weight, 1) } }), done);
}

/** The verdict of moving a pending job to another lane. */
export type ReassignResult = 'reassigned' | 'noop' | 'not_found' | 'not_pending';

const REASSIGN: Readonly<Record<number, ReassignResult>> = { 1: 'reassigned', 0: 'noop', [-2]: 'not_pending' };

/**
 * `greassign`: moves a pending job to lane `to`; the source lane comes from the row (queue.md §5.6).
 * [TS] `toName`, the name the caller gave that lane, is written into the row's `lane` field.
 */
export function laneReassign(input: { readonly queue: string; readonly id: JobId | string; readonly to: string; readonly toName?: string }): Transition<ReassignResult> {
  const id = idArg(input.id);
  const dst = idArg(input.to);
  const rest = input.toName === undefined ? [] : [input.toName];
  return transition(bind(scripts().greassign, { scope: { q: input.queue, id, dst }, args: { id, dst }, restArgs: rest }), (r) => REASSIGN[int(r)] ?? 'not_found');
}

/** `gdrain`: deletes a lane's waiting jobs with their rows and sub-keys; answers how many (queue.md §5.6). */
export function laneDrain(input: LaneInput): Transition<number> {
  const g = idArg(input.group);
  return transition(bind(scripts().gdrain, { scope: { q: input.queue, g }, args: { g } }), int);
}
