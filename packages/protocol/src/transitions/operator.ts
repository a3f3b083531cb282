import type { JobId } from '../ids/branded.js';
import { GoneError } from '../errors/wire.js';
import { assertDedupId } from '../keys/names.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { keysOf } from './key-shapes.js';
import { transition, type Transition } from './transition.js';
import { checkPriority, idArg, int, whole } from './values.js';

/** Reads 1 / -1 replies: -1 means the row is gone. */
function found(reply: unknown): number {
  const n = int(reply);
  if (n === -1) throw new GoneError();
  return n;
}

/** `queue_pause`: stops every claim on the queue (queue.md §8.1). */
export function pauseQueue(input: { readonly queue: string }): Transition<void> {
  return transition(bind(scripts().queue_pause, { scope: { q: input.queue } }), () => undefined);
}

/** `queue_resume`: lets claims run again. */
export function resumeQueue(input: { readonly queue: string }): Transition<void> {
  return transition(bind(scripts().queue_resume, { scope: { q: input.queue } }), () => undefined);
}

/** `drain`: deletes every waiting job, and scheduled ones when asked; answers how many (queue.md §8.4). */
export function drain(input: { readonly queue: string; readonly includeScheduled?: boolean }): Transition<number> {
  return transition(bind(scripts().drain, { scope: { q: input.queue }, optional: input.includeScheduled === true }), int);
}

/**
 * `obliterate`: deletes a paused queue in bounded steps; answers whether more remains (call again).
 * `repeatNames` are the names the host read from the repeat set: their records go in this step.
 */
export function obliterate(input: {
  readonly queue: string;
  readonly force?: boolean;
  readonly budget: number;
  readonly repeatNames: readonly string[];
}): Transition<'done' | 'more'> {
  const k = keysOf(input.queue);
  const call = bind(scripts().obliterate, {
    scope: { q: input.queue },
    args: { force: input.force ? 'force' : '', budget: whole('budget', input.budget, 1) },
    restKeys: input.repeatNames.map((name) => k.repeatRecord(name)),
    restArgs: input.repeatNames,
  });
  return transition(call, (reply) => (int(reply) === 0 ? 'done' : 'more'));
}

/** `update_data`: replaces a job's payload. The reply reader throws GoneError for a missing job. */
export function updateData(input: { readonly queue: string; readonly id: JobId | string; readonly payload: string }): Transition<void> {
  const id = idArg(input.id);
  return transition(bind(scripts().update_data, { scope: { q: input.queue, id }, args: { payload: input.payload } }), (r) => void found(r));
}

/** `update_progress`: records progress and publishes the `progress` event in the same step. */
export function updateProgress(input: {
  readonly queue: string;
  readonly id: JobId | string;
  readonly progress: string;
  /** How `progress` decodes when it is not what it looks like [TS]: numeric text, or JSON. */
  readonly kind?: 'string' | 'json';
}): Transition<void> {
  const id = idArg(input.id);
  const call = bind(scripts().update_progress, { scope: { q: input.queue, id }, args: { id, progress: input.progress }, restArgs: input.kind === undefined ? [] : [input.kind] });
  return transition(call, (r) => void found(r));
}

/** `add_log`: appends a log line, keeping the newest `keep` when `keep > 0`; answers the length. */
export function addLog(input: { readonly queue: string; readonly id: JobId | string; readonly line: string; readonly keep?: number }): Transition<number> {
  const id = idArg(input.id);
  const keep = whole('keep', input.keep ?? 0, 0);
  return transition(bind(scripts().add_log, { scope: { q: input.queue, id }, args: { line: input.line, keep: keep === 0 ? '' : keep } }), found);
}

/**
 * [TS] `clear_logs`: keeps a job's newest `keep` log lines (0 deletes the log); answers the lines
 * left. The reply reader throws GoneError for a missing job.
 */
export function clearLogs(input: { readonly queue: string; readonly id: JobId | string; readonly keep?: number }): Transition<number> {
  const id = idArg(input.id);
  const keep = whole('keep', input.keep ?? 0, 0);
  return transition(bind(scripts().clear_logs, { scope: { q: input.queue, id }, args: { keep } }), found);
}

/**
 * [TS] `dedup_release`: frees the idempotency key `dedupId` before its job ends, or, with `id`, only
 * while it names that job; answers whether it was freed.
 */
export function dedupRelease(input: { readonly queue: string; readonly dedupId: string; readonly id?: JobId | string }): Transition<boolean> {
  assertDedupId(input.dedupId);
  const id = input.id === undefined ? '' : idArg(input.id);
  return transition(bind(scripts().dedup_release, { scope: { q: input.queue, did: input.dedupId }, args: { id } }), (reply) => int(reply) === 1);
}

/** Where {@link changePriority} found the job. */
export type PriorityChange = 'moved' | 'kept';

/**
 * [TS] `change_priority`: gives a job a new priority (higher first, within ±MAX_PRIORITY). A job in
 * flat pending is re-scored at once, after the jobs waiting at that priority, or ahead of them with
 * `lifo` ('moved'); a job elsewhere keeps its place and takes the priority with it ('kept').
 * `payload`, when given, replaces the job's payload in the same step. Throws GoneError for a
 * missing job.
 */
export function changePriority(input: {
  readonly queue: string;
  readonly id: JobId | string;
  readonly priority: number;
  readonly lifo?: boolean;
  readonly payload?: string;
}): Transition<PriorityChange> {
  const id = idArg(input.id);
  const priority = checkPriority(input.priority);
  const call = bind(scripts().change_priority, {
    scope: { q: input.queue, id },
    args: { id, priority: String(priority), lifo: input.lifo === true ? '1' : '' },
    restArgs: input.payload === undefined ? [] : [input.payload],
  });
  return transition(call, (r) => (found(r) === 1 ? 'moved' : 'kept'));
}

/**
 * `remove_job`: deletes a job wherever it sits unless a worker holds it, and releases its
 * idempotency key when given and still naming it (queue.md §8.5). [TS] With `held`, a flow parent
 * still waiting on its children goes too (the caller removes the tree); without, it is refused.
 * Throws GoneError, LockedError, or StateError (`parent awaiting children`).
 */
export function removeJob(input: { readonly queue: string; readonly id: JobId | string; readonly dedupId?: string; readonly held?: boolean }): Transition<void> {
  const id = idArg(input.id);
  if (input.dedupId !== undefined) assertDedupId(input.dedupId);
  const call = bind(scripts().remove_job, {
    scope: { q: input.queue, id, ...(input.dedupId === undefined ? {} : { did: input.dedupId }) },
    args: { id, did: input.dedupId ?? '', held: input.held === true ? '1' : '' },
    optional: input.dedupId !== undefined,
  });
  return transition(call, (r) => void found(r));
}

/** A retention bound as {@link retentionSet} takes it: a count and an age in ms, each optional. */
export interface RetentionBound {
  /** Jobs kept, newest finished first; `Infinity` for no count bound. */
  readonly count?: number;
  /** Longest a job is kept after it finished, in ms. */
  readonly ageMs?: number;
}

function bound(name: string, value: number | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (value === Number.POSITIVE_INFINITY) return '-1';
  return String(whole(name, value, 0));
}

/**
 * `retention_set` [TS]: writes the queue's finished-job retention into meta. Completed: keep none
 * when `count` is 0 or when neither bound is given; an `ageMs` alone keeps every completed job that
 * young (no count bound). Failed (dead): the default bound (10000) when `count` is omitted.
 */
export function retentionSet(input: { readonly queue: string; readonly completed?: RetentionBound; readonly failed?: RetentionBound }): Transition<void> {
  const c = input.completed ?? {};
  const f = input.failed ?? {};
  // An age bound alone asks to keep jobs that young: its count is unbounded, not the default none.
  const completedCount = bound('keep.completed.count', c.count, c.ageMs === undefined ? '0' : '-1');
  const call = bind(scripts().retention_set, {
    scope: { q: input.queue },
    args: {
      completed_count: completedCount === '-1' ? String(Number.MAX_SAFE_INTEGER) : completedCount,
      completed_age: c.ageMs === undefined ? '' : String(whole('keep.completed.ageMs', c.ageMs, 1)),
      failed_count: bound('keep.failed.count', f.count, ''),
      failed_age: f.ageMs === undefined ? '' : String(whole('keep.failed.ageMs', f.ageMs, 1)),
    },
  });
  return transition(call, () => undefined);
}
