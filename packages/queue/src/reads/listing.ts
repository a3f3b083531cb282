import { CodecError, InvalidArgumentError, reads, type JobId, type JobRow } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { jobRecord, type JobRecord } from '../core/job.js';
import { checkListOptions } from '../core/option-checks.js';
import { settledValue } from './settled.js';

/**
 * The sets a queue's jobs sit in, as {@link listJobs} names them: the four of the protocol, and
 * [TS] the retained finished jobs, `completed` and `failed` (dead jobs by finish time).
 */
export type ListState = 'pending' | 'scheduled' | 'active' | 'dead' | 'completed' | 'failed';

/** The states {@link listJobs} accepts, in lifecycle order. */
export const LIST_STATES: readonly ListState[] = ['pending', 'scheduled', 'active', 'dead', 'completed', 'failed'];

/** State names users bring (the spec's set name, BullMQ's) and the one that means it here. */
const STATE_HINTS: Readonly<Record<string, string>> = {
  schedule: "the schedule set is listed as 'scheduled'",
  delayed: "BullMQ's delayed is 'scheduled' here",
  wait: "BullMQ's wait is 'pending' here",
  waiting: "BullMQ's waiting is 'pending' here",
  prioritized: "BullMQ's prioritized jobs are in 'pending' here",
};

/** Which slice of a set to read. */
export interface ListOptions {
  /** Index of the first job, 0 = the set's first member; default 0. */
  readonly offset?: number;
  /** At most this many jobs, 1..1000; default 50. */
  readonly limit?: number;
}

/** One job of a {@link JobPage}. */
export interface ListedJob<T> {
  readonly id: JobId;
  /**
   * The set's score: the run-at time (ms) for `scheduled`, the lease deadline (ms) for `active`,
   * the finish time (ms) for `completed` and `failed`, 0 for `pending` and `dead`.
   */
  readonly score: number;
  /**
   * The row, decoded with the queue's codec; `undefined` when the job left between the two reads
   * (the page is not a snapshot), or when the payload did not decode (see `rawPayload`).
   */
  readonly record: JobRecord<T> | undefined;
  /** The payload as stored, also when the codec refused it; `undefined` when the row is gone. */
  readonly rawPayload: string | undefined;
}

/** A page of one set: pending in claim order, scheduled by due time, active by lease deadline, dead newest first. */
export interface JobPage<T> {
  readonly state: ListState;
  /** Members of the set when it was read. */
  readonly total: number;
  readonly offset: number;
  readonly jobs: ListedJob<T>[];
}

/**
 * Pending and dead are score-0 ZSETs, so index order is lexical order, which is mint order (oldest
 * first, queue.md §2.1): pending is read in that order, which is claim order; dead is read newest
 * first, as an operator looks at a morgue. Scheduled and active are ordered by due time and lease
 * deadline.
 */
const SET_OF = { pending: 'pending', scheduled: 'schedule', active: 'active', dead: 'dead', completed: 'completed', failed: 'deadAt' } as const;

/** The states read from the set's far end (newest first). */
const NEWEST_FIRST: ReadonlySet<ListState> = new Set(['dead', 'completed', 'failed']);

function bounded(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new InvalidArgumentError(name, `must be an integer in ${min}..${max}`);
  return value;
}

/**
 * Reads one page of a state's set and the rows behind it: the set size and the slice in one
 * pipeline, then the rows in another. Plain reads, no script; the two steps are not atomic, so a
 * job that moved on in between comes back with `record: undefined`.
 *
 * @throws InvalidArgumentError for an unknown state, a negative offset or a limit outside 1..1000.
 */
export async function listJobs<T>(ctx: QueueContext<T>, state: ListState, options: ListOptions = {}): Promise<JobPage<T>> {
  checkListOptions(options);
  if (!Object.hasOwn(SET_OF, state)) {
    const hint = Object.hasOwn(STATE_HINTS, state) ? `; ${STATE_HINTS[state] ?? ''}` : '';
    throw new InvalidArgumentError('state', `must be one of ${LIST_STATES.join(', ')}${hint}`);
  }
  const offset = bounded('offset', options.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = bounded('limit', options.limit ?? 50, 1, 1000);
  const page = { keys: ctx.keys, set: SET_OF[state] };
  const [card, range] = await reads.sendReads(ctx.conn, [reads.queue.setSize(page), reads.queue.setPage({ ...page, offset, limit, newestFirst: NEWEST_FIRST.has(state) })]);
  const total = settledValue(card);
  const members = settledValue(range);
  const rows = await reads.sendReads(ctx.conn, members.map(({ id }) => reads.queue.job({ keys: ctx.keys, id })));
  const jobs: ListedJob<T>[] = [];
  for (const [i, { id, score }] of members.entries()) {
    const reply = rows[i];
    if (reply === undefined) throw new Error('missing pipeline reply');
    const row = settledValue(reply);
    if (staleIndexEntry(state, row)) continue;
    jobs.push({ id, score, ...decoded(ctx, id, row) });
  }
  return { state, total, offset, jobs };
}

/**
 * [TS] The finish-time indexes (`completed`, `dead:at`) are Echo's own: another EchoMQ runtime that
 * reprocesses, removes or obliterates never updates them. An entry is listed only while its row is in
 * the state the index claims; a missing row (the job left between the two reads, or another runtime
 * deleted it) or a row in another state is left out. The retention sweep drops such entries.
 */
const INDEXED_STATE: Partial<Readonly<Record<ListState, string>>> = { completed: 'completed', failed: 'dead' };

function staleIndexEntry(state: ListState, row: JobRow | undefined): boolean {
  const want = INDEXED_STATE[state];
  return want !== undefined && row?.rawState !== want;
}

function decoded<T>(ctx: QueueContext<T>, id: JobId, row: JobRow | undefined): Pick<ListedJob<T>, 'record' | 'rawPayload'> {
  const rawPayload = row?.payload;
  try {
    return { record: jobRecord(id, ctx.name, ctx.codec, row), rawPayload };
  } catch (error) {
    // One undecodable payload must not hide the rest of the page.
    if (error instanceof CodecError) return { record: undefined, rawPayload };
    throw error;
  }
}
