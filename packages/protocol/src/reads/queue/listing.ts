import { InvalidArgumentError } from '../../errors/validation.js';
import type { JobId } from '../../ids/branded.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import { read, type Read } from '../read.js';
import { integer } from '../../reply-shapes.js';
import { jobIdOf, jobIds, scored } from './replies.js';

/**
 * The queue's job sets a listing reads, by their {@link QueueKeys} name: the four state sets, and
 * [TS] the retention indexes (`completed`, `deadAt`) and the `expired` index, scored by finish time.
 */
export const JOB_SETS = ['pending', 'schedule', 'active', 'dead', 'completed', 'deadAt', 'expired'] as const;

/** One job set. */
export type JobSet = (typeof JOB_SETS)[number];

const SETS: ReadonlySet<string> = new Set(JOB_SETS);

function setKey(keys: QueueKeys, set: JobSet): string {
  if (!SETS.has(set)) throw new InvalidArgumentError('set', `must be one of ${JOB_SETS.join(', ')}, got ${JSON.stringify(set)}`);
  return keys[set];
}

function whole(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

/** Which set a listing read is about. */
export interface SetInput {
  /** The queue's keys, from `queueKeys`. */
  readonly keys: QueueKeys;
  /** The set, by its key's name. */
  readonly set: JobSet;
}

/** `ZCARD <set>`: how many jobs the set holds. */
export function setSize(input: SetInput): Read<number> {
  return read('ZCARD', [setKey(input.keys, input.set)], (reply) => integer('ZCARD', reply));
}

/** A listed member: the job's id and its score in the set (due time, lease deadline, finish time; 0 in pending and dead). */
export interface ScoredJob {
  /** The member. */
  readonly id: JobId;
  /** Its score in the set. */
  readonly score: number;
}

/** One page of a set: `limit` members from `offset`, in score order or (`newestFirst`) reversed. */
export interface PageInput extends SetInput {
  /** Members skipped from the start (the far end when `newestFirst`), 0 or more. */
  readonly offset: number;
  /** Members read, 1 or more. */
  readonly limit: number;
  /** Read from the highest score down (`REV`). */
  readonly newestFirst?: boolean;
}

/**
 * `ZRANGE <set> offset offset+limit-1 [REV] WITHSCORES`: one page of a set with the members' scores.
 * A member that is not a job id names no row and is left out.
 */
export function setPage(input: PageInput): Read<ScoredJob[]> {
  const offset = whole('offset', input.offset, 0);
  const limit = whole('limit', input.limit, 1);
  const args = [setKey(input.keys, input.set), offset, offset + limit - 1, ...(input.newestFirst === true ? ['REV'] : []), 'WITHSCORES'];
  return read('ZRANGE', args, (reply) => {
    const out: ScoredJob[] = [];
    for (const [member, score] of scored('ZRANGE', reply)) {
      const id = jobIdOf(member);
      if (id !== undefined) out.push({ id, score });
    }
    return out;
  });
}

/**
 * `ZRANGE pending + - BYLEX REV LIMIT 0 n`: the newest `n` pending ids, newest first. Ids sort by mint
 * time, so mint order needs no second index (queue.md §2.1).
 */
export function newestPending(input: { readonly keys: QueueKeys; readonly n: number }): Read<JobId[]> {
  return read('ZRANGE', [input.keys.pending, '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, whole('n', input.n, 1)], (reply) => jobIds('ZRANGE', reply));
}

/**
 * `ZRANGE <set> -inf cutoff BYSCORE LIMIT 0 limit`: up to `limit` ids scored at or before `cutoff`,
 * oldest first; on a finish-time index, the jobs that finished by then.
 */
export function scoredUpTo(input: SetInput & { readonly cutoff: number; readonly limit: number }): Read<JobId[]> {
  if (!Number.isFinite(input.cutoff)) throw new InvalidArgumentError('cutoff', `must be a finite number, got ${String(input.cutoff)}`);
  return read('ZRANGE', [setKey(input.keys, input.set), '-inf', input.cutoff, 'BYSCORE', 'LIMIT', 0, whole('limit', input.limit, 1)], (reply) => jobIds('ZRANGE', reply));
}
