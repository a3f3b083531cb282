import { assertBrandedId, execute, InvalidArgumentError, reads, transitions as t, type BrandedId } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { ifRowExists } from '../reads/settled.js';
import { encodeProgress, type Progress } from '../reads/progress.js';
import { checkDrainOptions, checkEventsSettings, checkObliterateOptions, checkPriorityOptions, checkRemoveOptions } from '../core/option-checks.js';

function checkedId(id: string): BrandedId {
  assertBrandedId(id);
  return id;
}

/** Stops every claim on the queue; admission, promote and reap go on (queue.md §8.1). */
export async function pause<T>(ctx: QueueContext<T>): Promise<void> {
  await execute(ctx.conn, t.pauseQueue({ queue: ctx.name }));
}

/** Lets claims run again. */
export async function resume<T>(ctx: QueueContext<T>): Promise<void> {
  await execute(ctx.conn, t.resumeQueue({ queue: ctx.name }));
}

/** Deletes every waiting job, and scheduled ones when asked; active jobs are untouched (queue.md §8.4). */
export async function drain<T>(ctx: QueueContext<T>, options: { includeScheduled?: boolean } = {}): Promise<number> {
  checkDrainOptions(options);
  return execute(ctx.conn, t.drain({ queue: ctx.name, includeScheduled: options.includeScheduled === true }));
}

/**
 * Deletes a paused queue entirely, in bounded steps (queue.md §8.4). Refuses an unpaused queue,
 * active jobs and an unsent flow outbox unless `force` is set.
 * @throws StateError with detail `not paused`, `active jobs present` or `outbox not empty`.
 */
export async function obliterate<T>(ctx: QueueContext<T>, options: { force?: boolean; budget?: number } = {}): Promise<void> {
  checkObliterateOptions(options);
  const budget = options.budget ?? 1000;
  for (;;) {
    // The repeat records are named by the set itself, so the host reads the names first (§8.4).
    const repeatNames = await reads.sendRead(ctx.conn, reads.queue.repeatNames({ keys: ctx.keys }));
    const step = await execute(ctx.conn, t.obliterate({ queue: ctx.name, force: options.force === true, budget, repeatNames }));
    if (step === 'done') return;
  }
}

/** Replaces a job's payload. @throws GoneError when the job does not exist. */
export async function updateData<T>(ctx: QueueContext<T>, id: string, payload: T): Promise<void> {
  await execute(ctx.conn, t.updateData({ queue: ctx.name, id, payload: ctx.codec.encode(payload) }));
}

/** Records progress and publishes the `progress` event atomically. @throws GoneError. */
export async function updateProgress<T>(ctx: QueueContext<T>, id: string, progress: Progress): Promise<void> {
  await execute(ctx.conn, t.updateProgress({ queue: ctx.name, id, ...encodeProgress(progress) }));
}

/** Appends a log line, keeping only the newest `keep` lines when `keep > 0`; answers the length. */
export async function addLog<T>(ctx: QueueContext<T>, id: string, line: string, keep = 0): Promise<number> {
  return execute(ctx.conn, t.addLog({ queue: ctx.name, id, line, keep }));
}

/**
 * [TS] Frees the idempotency key `dedupId` before its job ends (the next admission under it is
 * admitted), or, with `id`, only while it names that job; answers whether it was freed.
 */
export async function releaseDedup<T>(ctx: QueueContext<T>, dedupId: string, id?: string): Promise<boolean> {
  return execute(ctx.conn, t.dedupRelease({ queue: ctx.name, dedupId, ...(id === undefined ? {} : { id }) }));
}

/** Keeps a job's newest `keep` log lines (0 deletes the log); answers the lines left. @throws GoneError. */
export async function clearLogs<T>(ctx: QueueContext<T>, id: string, keep = 0): Promise<number> {
  return execute(ctx.conn, t.clearLogs({ queue: ctx.name, id, keep }));
}

/** How {@link changePriority} places the job. */
export interface PriorityOptions<T> {
  /** Ahead of the jobs waiting at the new priority (newest first), instead of after them. */
  readonly lifo?: boolean;
  /** A new payload, written in the same step (for a caller that keeps the priority in it). */
  readonly payload?: T;
}

/**
 * Gives a job a new priority (higher first). A waiting job moves at once: after the jobs waiting at
 * that priority, or ahead of them with `lifo` (answers `'moved'`); a job elsewhere keeps its place
 * and runs at the new priority when it next waits (`'kept'`).
 * @throws GoneError when the job does not exist; InvalidArgumentError for a priority outside ±MAX_PRIORITY.
 */
export async function changePriority<T>(ctx: QueueContext<T>, id: string, priority: number, options: PriorityOptions<T> = {}): Promise<'moved' | 'kept'> {
  checkPriorityOptions(options);
  const payload = options.payload === undefined ? {} : { payload: ctx.codec.encode(options.payload) };
  return execute(ctx.conn, t.changePriority({ queue: ctx.name, id, priority, lifo: options.lifo === true, ...payload }));
}

/** A job's log lines in append order. @throws GoneError when the job does not exist. */
export async function getLogs<T>(ctx: QueueContext<T>, id: string): Promise<string[]> {
  const job = { keys: ctx.keys, id: checkedId(id) };
  const [exists, lines] = await reads.sendReads(ctx.conn, [reads.queue.jobExists(job), reads.queue.jobLogs(job)]);
  return ifRowExists(exists, lines);
}

/** {@link removeJob}'s options. */
export interface RemoveOptions {
  /** An idempotency key to release when it still names the job. */
  readonly dedupId?: string;
  /**
   * [TS] A flow parent still waiting on its children may be removed too: the caller removes the
   * tree (remove its children after it; any left run as lone jobs, reporting to no one).
   */
  readonly held?: boolean;
}

/**
 * Deletes a job wherever it sits, unless a worker holds its lock, and releases its idempotency key
 * when given and still naming it (queue.md §8.5).
 * @throws GoneError; LockedError while locked; StateError (`parent awaiting children`) without `held`.
 */
export async function removeJob<T>(ctx: QueueContext<T>, id: string, options: RemoveOptions = {}): Promise<void> {
  checkRemoveOptions(options);
  const held: unknown = options.held;
  if (held !== undefined && typeof held !== 'boolean') throw new InvalidArgumentError('held', 'must be a boolean');
  // The script publishes `removed` in the same step; a job that was not there raises GoneError.
  await execute(ctx.conn, t.removeJob({ queue: ctx.name, id, ...(options.dedupId === undefined ? {} : { dedupId: options.dedupId }), ...(held === true ? { held: true } : {}) }));
}

/** What {@link setEvents} changes; a setting left out is kept. */
export interface EventsSettings {
  /**
   * Also publish the chatty events: `waiting`, `active` and `drained`. Off by default: they cost
   * one or more publishes per job on the hot paths.
   */
  readonly chatty?: boolean;
  /**
   * Journal every published event into `emq:{q}:journal`, keeping about this many; `null` stops
   * journaling (what the journal holds is kept).
   */
  readonly journal?: number | null;
  /**
   * [TS] Keep each job's last `history` attempts (1..1000; start, end, outcome, duration, error),
   * read by `getAttempts`; `null` stops recording. Off by default: when on, a claim costs one more
   * command per job and an attempt's end one or two.
   */
  readonly history?: number | null;
  /**
   * [TS] Count completions and failed attempts per minute, kept this many minutes (1..10080) in the
   * metrics hashes, read by `getMinutes`; `null` stops counting.
   */
  readonly minutes?: number | null;
}

/** Sets the queue's lifecycle-event settings, which every writer of the queue follows at once. */
export async function setEvents<T>(ctx: QueueContext<T>, settings: EventsSettings): Promise<void> {
  checkEventsSettings(settings);
  await execute(ctx.conn, t.setEvents({ queue: ctx.name, ...settings }));
}
