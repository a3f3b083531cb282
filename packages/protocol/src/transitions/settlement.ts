import type { JobId } from '../ids/branded.js';
import { scripts } from '../scripts/catalog.js';
import { bind, type BindInput } from './bind.js';
import { keysOf } from './key-shapes.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { idArg, int, tokenArg, whole, type FlowLink } from './values.js';
import { decimals, texts } from '../reply-shapes.js';

/** A job held under a lease, as every settlement names it. */
export interface HeldJob {
  readonly id: JobId | string;
  /** The attempts value the claim returned: the fencing token. */
  readonly attempts: number;
  /** The job's flow parent, when it is a flow child. */
  readonly parent?: FlowLink | undefined;
  /**
   * [TS] The handler's result text, kept on a retained row and carried by the `completed` event when
   * the job is completed in a batch or a round; none when omitted.
   */
  readonly result?: string | undefined;
}

/** What every settlement names: the queue and the held job. */
export interface SettleInput {
  readonly queue: string;
  readonly job: HeldJob;
}

/** Input of {@link complete}. */
export interface CompleteInput extends SettleInput {
  /**
   * The handler's result: recorded for a flow parent (the child's own id when omitted or empty),
   * kept on a retained row and carried by the `completed` event [TS].
   */
  readonly result?: string;
  /** Publish the `completed` event in the same step [TS]. */
  readonly publish?: boolean;
}

/**
 * `complete`: settles a held job as done (queue.md §3.3). A flow child feeds its parent in the same
 * step: directly when they share a queue, through this queue's outbox otherwise.
 */
export function complete(input: CompleteInput): Transition<void> {
  const id = idArg(input.job.id);
  const parent = input.job.parent;
  const same = parent?.queue === input.queue;
  const k = keysOf(input.queue);
  // The parent's keys by the names of complete.lua's @tail layouts; bind orders them.
  const tail: BindInput['tail'] =
    parent === undefined
      ? undefined
      : same
        ? {
            layout: 'sq',
            keys: {
              parent_deps: k.jobSub(parent.id, 'dependencies'),
              parent_processed: k.jobSub(parent.id, 'processed'),
              parent_row: k.job(parent.id),
              waiting_children: k.waitingChildren,
            },
          }
        : { layout: 'xq', keys: { flow_outbox: k.flowOutbox } };
  const call = bind(scripts().complete, {
    scope: { q: input.queue, id },
    args: {
      id,
      token: tokenArg(input.job.attempts),
      mode: parent === undefined ? '' : same ? 'sq' : 'xq',
      parent_id: parent?.id ?? '',
      result: input.result ?? '',
      parent_queue: parent !== undefined && !same ? keysOf(parent.queue).queue : '',
    },
    tail,
    restArgs: input.publish ? ['1'] : [],
  });
  return transition(call, () => undefined);
}

/** How one member of {@link completeBatch} ended; `flow` members must go through {@link complete}. */
export type BatchCompletion = 'ok' | 'gone' | 'stale' | 'flow';

const BATCH_CODES: Readonly<Record<number, BatchCompletion>> = { 1: 'ok', [-1]: 'gone', [-2]: 'stale', [-3]: 'flow' };

/** Reads the per-member codes of a batch completion (complete_batch, complete_claim). */
export function batchCompletions(codes: readonly number[]): BatchCompletion[] {
  return codes.map((code) => BATCH_CODES[code] ?? 'gone');
}

/** The (id, token, result) triples of a batch completion [TS]; result "" for none. */
export function heldTriples(jobs: readonly HeldJob[]): string[] {
  const out: string[] = [];
  for (const job of jobs) out.push(idArg(job.id), tokenArg(job.attempts), job.result ?? '');
  return out;
}

/** Input of {@link completeBatch}. */
export interface CompleteBatchInput {
  readonly queue: string;
  readonly jobs: readonly HeldJob[];
  /** Publish a `completed` event per settled job in the same step. */
  readonly publish?: boolean;
}

/** `complete_batch` [TS]: settles many held plain jobs as done in one step, each fenced on its own token. */
export function completeBatch(input: CompleteBatchInput): Transition<BatchCompletion[]> {
  const call = bind(scripts().complete_batch, { scope: { q: input.queue }, args: { publish: input.publish ? '1' : '' }, restArgs: heldTriples(input.jobs) });
  return checkedTransition(call, (command, reply) => batchCompletions(decimals(command, reply, reply, 'the reply')));
}

/** The retry verdict: rescheduled for another attempt, or dead-lettered at the cap. */
export type RetryOutcome = 'scheduled' | 'dead';

/** Input of {@link retry}. */
export interface RetryInput extends SettleInput {
  /** How long to wait before the next attempt, from the server's now. */
  readonly delayMs: number;
  /** The attempt cap: at attempts >= cap the job dies. */
  readonly maxAttempts: number;
  /** The failure text, kept as `last_error`. */
  readonly error: string;
  /** Publish `failed` with its `outcome` in the same step [TS]. */
  readonly publish?: boolean;
}

/**
 * `retry`: settles a held job as failed (queue.md §4.1): rescheduled, or dead-lettered at the cap
 * with its flow failure arm run in the same step.
 */
export function retry(input: RetryInput): Transition<RetryOutcome> {
  const id = idArg(input.job.id);
  const parent = input.job.parent;
  const same = parent?.queue === input.queue;
  const k = keysOf(input.queue);
  // The parent's keys by the names of retry.lua's @tail layouts; bind orders them.
  const tail: BindInput['tail'] =
    parent === undefined
      ? undefined
      : same
        ? {
            layout: 'sq',
            keys: {
              parent_failed: k.jobSub(parent.id, 'failed'),
              parent_unsuccessful: k.jobSub(parent.id, 'unsuccessful'),
              parent_deps: k.jobSub(parent.id, 'dependencies'),
              parent_row: k.job(parent.id),
              waiting_children: k.waitingChildren,
            },
          }
        : { layout: 'xq', keys: { flow_outbox: k.flowOutbox } };
  const call = bind(scripts().retry, {
    scope: { q: input.queue, id },
    args: {
      id,
      token: tokenArg(input.job.attempts),
      delay_ms: whole('delayMs', input.delayMs, 0),
      max_attempts: whole('maxAttempts', input.maxAttempts, 1),
      error: input.error,
      mode: parent === undefined ? '' : `${same ? 'sq' : 'xq'}:${parent.policy}`,
      parent_id: parent?.id ?? '',
      parent_queue: parent !== undefined && !same ? keysOf(parent.queue).queue : '',
    },
    tail,
    restArgs: input.publish ? ['1'] : [],
  });
  return transition(call, (reply) => (reply === 'dead' ? 'dead' : 'scheduled'));
}

/** Input of {@link delay}: `until` is ms from the server's now, or an absolute Date. */
export interface DelayInput extends SettleInput {
  readonly until: number | Date;
  /** Publish `delayed` with `runAt` in the same step [TS]. */
  readonly publish?: boolean;
}

/** `delay`: hands a held job back until later without counting a failure (queue.md §8.3). */
export function delay(input: DelayInput): Transition<void> {
  const id = idArg(input.job.id);
  const [mode, ms] = input.until instanceof Date ? ['at', input.until.getTime()] : ['in', input.until];
  const call = bind(scripts().delay, {
    scope: { q: input.queue, id },
    args: { id, token: tokenArg(input.job.attempts), mode, ms: whole('delay', ms, 0) },
    restArgs: input.publish ? ['1'] : [],
  });
  return transition(call, () => undefined);
}

/** `extend_lock`: pushes one held job's lease out to `leaseMs` from the server's now (queue.md §6.3). */
export function extendLock(input: SettleInput & { readonly leaseMs: number }): Transition<void> {
  const id = idArg(input.job.id);
  const call = bind(scripts().extend_lock, {
    scope: { q: input.queue, id },
    args: { id, token: tokenArg(input.job.attempts), lease_ms: whole('leaseMs', input.leaseMs, 1) },
  });
  return transition(call, (reply) => void int(reply));
}

/**
 * `extend_locks` [TS]: extends many leases under one server time; answers the ids that could NOT be
 * extended (gone, stale or no longer active).
 */
export function extendLocks(input: {
  readonly queue: string;
  readonly jobs: readonly HeldJob[];
  readonly leaseMs: number;
  /** Also push each extended job's `:lock` marker out to this many ms [TS]. */
  readonly markerTtlMs?: number;
}): Transition<JobId[]> {
  const pairs: string[] = [];
  for (const job of input.jobs) pairs.push(idArg(job.id), tokenArg(job.attempts));
  const marker = input.markerTtlMs === undefined ? 0 : whole('markerTtlMs', input.markerTtlMs, 1);
  const call = bind(scripts().extend_locks, {
    scope: { q: input.queue },
    args: { lease_ms: whole('leaseMs', input.leaseMs, 1), marker_ms: marker },
    restArgs: pairs,
  });
  return checkedTransition(call, (command, reply) => texts(command, reply, reply, 'the reply') as JobId[]);
}
