import { type ClaimedJob, type JobContext, type JobRecord, type Queue as EchoQueue } from '@echo/queue';
import { attemptsMadeOf, type Envelope, type StoredOptions } from './envelope.js';
import { refused } from './errors.js';
import { changeJobPriority, clearJobLogs, updateJobData, type ChangePriorityOpts } from './job-edits.js';
import { bullmqState, type JobState } from './job-state.js';
import { completeHeld, extendHeld, failHeld, type ManualLease, type NextJobData } from './manual.js';
import { keyOfJobId, qualifiedNameOf, rememberJobId } from './ids.js';
import { removeChildDependency } from './flow/child-dependency.js';
import { removeUnprocessedChildren, type RemoveOpts } from './flow/remove-tree.js';
import { openBeside } from './flow/open-beside.js';
import { childrenValues, dependencyCounts, dependencyPages, ignoredFailures, type Dependencies, type DependenciesOpts, type DependencyCounts, type DependencyPages } from './flow/dependencies.js';
import { withStack, type JobsOptions } from './job-options.js';
import type { Queue } from './queue.js';
import type { QueueEvents } from './queue-events.js';
import { retryJob, type RetryOptions } from './job-retry.js';
import { heldLease, manualToWait, manualWaitChildren } from './job-held.js';
import { jobFromClaim, jobFromManual, jobFromRecord, jobFromStalled } from './job-factories.js';
import { jobJson, storedProgress, waitFinished, type JobProgress } from './job-values.js';
import { removeJob } from './job-remove.js';
import { stepToDelayed, stepToWait, stepToWaitingChildren } from './job-steps.js';

export type { JobState } from './job-state.js';
export type { RetryOptions } from './job-retry.js';
export type { JobProgress } from './job-values.js';

/** What a running job needs from its worker: the lease context and the progress hook. */
export interface RunningHooks {
  readonly context: JobContext;
  readonly onProgress: (job: Job, progress: JobProgress) => void;
}

/**
 * A job, as BullMQ shows it: `id` is the application's `jobId` when it gave one, Echo's minted id
 * otherwise. Built by `Queue.add`, `Queue.getJob` and for each job a `Worker` runs.
 */
export class Job<DataType = unknown, ReturnType = unknown, NameType extends string = string> {
  /** The id the application sees. */
  readonly id: string;
  /** The job's name. */
  readonly name: NameType;
  /** The job's data. */
  data: DataType;
  /** The options it was added with (those that travel with it). */
  readonly opts: StoredOptions;
  /** When it was created, epoch ms. */
  readonly timestamp: number;
  /** The queue's name. */
  readonly queueName: string;
  /** The last progress reported. */
  progress: JobProgress = 0;
  /** Attempts that ended (failed or completed). */
  attemptsMade = 0;
  /** Attempts started. */
  attemptsStarted = 0;
  /** How many times the job stalled (its lock lapsed and it was taken back). */
  stalledCounter = 0;
  /** The processor's return value, once completed; null before (BullMQ's default). */
  returnvalue: ReturnType | null = null;
  /** The last failure's message; null once `retry()` cleared it. */
  failedReason: string | null | undefined = undefined;
  /** The failures' stacks, newest last. */
  stacktrace: string[] = [];
  /** When the current (or last) attempt started; null once `retry()` cleared it. */
  processedOn: number | null | undefined = undefined;
  /** When the job finished; null once `retry()` cleared it. */
  finishedOn: number | null | undefined = undefined;
  /** Its priority: 1 runs first; 0 (none) runs before every prioritized job. */
  priority: number;
  /** The delay the job was added (or last moved) with, ms; 0 when it had none. */
  delay = 0;
  /** The name of the worker running the job (its `name` option), when it has one. */
  processedBy: string | undefined = undefined;
  /** The lease token of the running attempt, as BullMQ passes it to the processor. */
  token: string | undefined = undefined;
  /** A flow child's parent: its id and its queue's key (`bull:<queue>`); cleared by `removeChildDependency`. */
  parent: { readonly id: string; readonly queueKey: string } | undefined;
  /** A flow child's parent as BullMQ keys it (`bull:<queue>:<id>`). */
  parentKey: string | undefined;
  /** The id of the job scheduler that made the job, when one did. */
  readonly repeatJobKey: string | undefined;
  /** BullMQ's qualified name of the job's queue (`bull:<queue>`). */
  readonly queueQualifiedName: string;
  /** The deduplication id the job was added with, if any. */
  readonly deduplicationId: string | undefined;

  readonly #queue: EchoQueue<Envelope>;
  readonly #echoId: string;
  readonly #hooks: RunningHooks | undefined;
  readonly #envelope: Envelope;
  #manual: ManualLease | undefined;

  /** @internal */
  constructor(queue: EchoQueue<Envelope>, echoId: string, envelope: Envelope, hooks?: RunningHooks, manual?: ManualLease) {
    this.#queue = queue;
    this.#echoId = echoId;
    this.#hooks = hooks;
    this.#manual = manual;
    this.id = envelope.i ?? echoId;
    if (envelope.i !== undefined) rememberJobId(echoId, envelope.i);
    this.name = envelope.n as NameType;
    this.data = envelope.d as DataType;
    this.opts = envelope.o ?? {};
    this.delay = this.opts.delay ?? 0;
    this.priority = this.opts.priority ?? 0;
    this.deduplicationId = this.opts.deduplication?.id;
    this.timestamp = envelope.t;
    this.queueQualifiedName = qualifiedNameOf(queue.name);
    this.queueName = this.queueQualifiedName.slice(this.queueQualifiedName.lastIndexOf(':') + 1);
    this.#envelope = envelope;
    this.repeatJobKey = envelope.r;
    this.parent = envelope.p;
    this.parentKey = envelope.p === undefined ? undefined : `${envelope.p.queueKey}:${envelope.p.id}`;
  }

  /** @internal A job read from its row. */
  static fromRecord<D, R, N extends string>(queue: EchoQueue<Envelope>, record: JobRecord<Envelope>): Job<D, R, N> {
    return jobFromRecord(queue, record);
  }

  /** @internal A job a worker claimed. */
  static fromClaim<D, R, N extends string>(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>, hooks: RunningHooks): Job<D, R, N> {
    return jobFromClaim(queue, claimed, hooks);
  }

  /** @internal A job the stalled sweep failed for good, as read before the sweep, after `stalls` stalls. */
  static fromStalled<D, R, N extends string>(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>, stalls: number): Job<D, R, N> {
    return jobFromStalled(queue, claimed, stalls);
  }

  /** @internal A job a worker handed out by `getNextJob(token)`, settled by hand. */
  static fromManual<D, R, N extends string>(lease: ManualLease): Job<D, R, N> {
    return jobFromManual(lease);
  }

  /**
   * Completes a job taken with `worker.getNextJob(token)` (BullMQ's manual processing), with
   * `returnValue` as its result. With `fetchNext` (BullMQ's default) the next waiting job is taken
   * under the same token and answered as BullMQ's raw `[jobData, jobId, 0, 0]`; `[]` when none.
   */
  async moveToCompleted(returnValue: ReturnType, token: string, fetchNext = true): Promise<NextJobData> {
    const lease = await heldLease(this.#queue, this.#echoId, this.id, this.#manual, token, 'moveToFinished', false);
    await completeHeld(lease, returnValue);
    this.#manual = undefined;
    this.returnvalue = returnValue;
    this.attemptsMade = attemptsMadeOf(this.#envelope, lease.claimed.attempts);
    this.finishedOn = Date.now();
    return fetchNext ? lease.fetchNext() : [];
  }

  /**
   * Fails the current attempt of a job taken with `worker.getNextJob(token)`: it runs again after
   * its backoff while it has attempts left, else it fails for good. With `fetchNext`, the next
   * waiting job is taken and answered as by {@link moveToCompleted} (not when the job goes straight
   * back to wait, as BullMQ's retry without backoff takes none); `[]` otherwise.
   */
  async moveToFailed(error: Error, token: string, fetchNext = false): Promise<NextJobData> {
    // BullMQ retries a job with attempts left through its retryJob command, which checks the state first.
    const retrying = (this.opts.attempts ?? 1) > this.attemptsMade + 1;
    const lease = await heldLease(this.#queue, this.#echoId, this.id, this.#manual, token, retrying ? 'retryJob' : 'moveToFinished', retrying);
    const went = await failHeld(lease, error);
    this.#manual = undefined;
    this.failedReason = error.message;
    this.stacktrace = withStack(this.stacktrace, error.stack, this.opts.stackTraceLimit);
    this.attemptsMade = attemptsMadeOf(this.#envelope, lease.claimed.attempts);
    if (went === 'dead') this.finishedOn = Date.now();
    // BullMQ puts a retry without backoff back in wait by a script that takes no next job.
    return fetchNext && went !== 'waiting' ? lease.fetchNext() : [];
  }

  /** Extends the lock of a job taken with `worker.getNextJob(token)` by `duration` ms from now; answers 1. */
  async extendLock(token: string, duration: number): Promise<number> {
    const lease = await heldLease(this.#queue, this.#echoId, this.id, this.#manual, token, 'extendLock', false);
    await extendHeld(lease, duration);
    return 1;
  }

  /** The job `jobId` of `queue` (the same as `queue.getJob`). */
  static fromId<D, R, N extends string>(queue: Queue<D, R, N>, jobId: string): Promise<Job<D, R, N> | undefined> {
    return queue.getJob(jobId);
  }

  /** Adds a job to `queue` (the same as `queue.add`). */
  static create<D, R, N extends string>(queue: Queue<D, R, N>, name: N, data: D, opts?: JobsOptions): Promise<Job<D, R, N>> {
    return queue.add(name, data, opts);
  }

  /**
   * Gives the job a new priority (1 first; 0 for none). A waiting job moves at once, after the jobs
   * waiting at that priority or, with `lifo`, ahead of them; a delayed, active or finished job keeps
   * its place and runs at the new priority when it next waits.
   */
  async changePriority(opts: ChangePriorityOpts): Promise<void> {
    this.priority = await changeJobPriority(this.#queue, this.#echoId, this.id, opts);
  }

  /** Echo's id for this job (differs from `id` when the application gave a `jobId`). */
  get echoId(): string {
    return this.#echoId;
  }

  /** Reports progress: stored on the job, published as a `progress` event, and emitted by the worker. */
  async updateProgress(progress: JobProgress): Promise<void> {
    this.progress = progress;
    await this.#queue.updateProgress(this.#echoId, storedProgress(progress)).catch(refused(this.id, 'updateProgress', 'active'));
    this.#hooks?.onProgress(this, progress);
  }

  /** Appends a line to the job's log, keeping the newest `opts.keepLogs` when set; answers the log's length. */
  log(line: string): Promise<number> {
    const keep = this.opts.keepLogs;
    if (this.#hooks && keep === undefined) return this.#hooks.context.log(line);
    return this.#queue.addLog(this.#echoId, line, keep).catch(refused(this.id, 'addLog', 'active'));
  }

  /** The job's log lines and how many there are (`start`/`end` slice them, BullMQ's way). */
  async getLogs(start = 0, end = -1): Promise<{ logs: string[]; count: number }> {
    const all = await this.#queue.getLogs(this.#echoId);
    return { logs: all.slice(start, end < 0 ? all.length + end + 1 : end + 1), count: all.length };
  }

  /** Keeps the newest `keepLogs` lines of the job's log; without a count (or 0) deletes the log. */
  clearLogs(keepLogs?: number): Promise<void> {
    return clearJobLogs(this.#queue, this.#echoId, this.id, keepLogs);
  }

  /** Where the job is now. */
  async getState(): Promise<JobState> {
    return bullmqState(await this.#queue.getState(this.#echoId), this.priority);
  }

  /** True when the job completed. */
  async isCompleted(): Promise<boolean> { return (await this.getState()) === 'completed'; }

  /** True when the job failed for good. */
  async isFailed(): Promise<boolean> { return (await this.getState()) === 'failed'; }

  /** True while the job waits on a time. */
  async isDelayed(): Promise<boolean> { return (await this.getState()) === 'delayed'; }

  /** True while the job is running. */
  async isActive(): Promise<boolean> { return (await this.getState()) === 'active'; }

  /** True while the job waits for a worker. */
  async isWaiting(): Promise<boolean> { return ['waiting', 'prioritized'].includes(await this.getState()); }

  /**
   * Removes the job and, unless `removeChildren` is false, its children at every depth; a parent
   * that waited on it stops waiting. Refused while a worker holds any job of the tree, and for a
   * scheduler's next run, as BullMQ refuses them.
   */
  remove(opts: RemoveOpts = {}): Promise<void> {
    return removeJob(this.#queue, this.#echoId, this.id, this.#envelope, opts);
  }

  /** Frees the job's deduplication id while it still names this job; answers whether it did. */
  async removeDeduplicationKey(): Promise<boolean> {
    if (this.deduplicationId === undefined) return false;
    return this.#queue.releaseDedup(keyOfJobId(this.deduplicationId), this.#echoId);
  }

  /** Removes the children still open (waiting, delayed or waiting for their own), with theirs; running and finished ones stay. */
  removeUnprocessedChildren(): Promise<void> {
    return removeUnprocessedChildren(openBeside(this.#queue), this.#queue, this.#echoId, this.#envelope);
  }

  /**
   * Runs a failed job (or, with `'completed'`, a completed job the queue kept) again. A job in
   * another state, or gone, is refused with BullMQ's texts. `resetAttemptsMade` /
   * `resetAttemptsStarted` start the counts the job reports over (see `retryJob`).
   */
  async retry(state: 'failed' | 'completed' = 'failed', opts: RetryOptions = {}): Promise<void> {
    await retryJob(this.#queue, this.#echoId, this.id, state, opts);
    // BullMQ's retry clears these to null on the job at hand.
    this.failedReason = null;
    this.finishedOn = null;
    this.processedOn = null;
    this.returnvalue = null;
  }

  /** Runs a delayed job now; its `delay` reads 0 after. */
  async promote(): Promise<void> {
    await this.#queue.promote(this.#echoId).catch(refused(this.id, 'promote', 'delayed'));
    this.delay = 0;
  }

  /** Moves a delayed job's run time to `delay` ms from now. */
  async changeDelay(delay: number): Promise<void> {
    await this.#queue.changeDelay(this.#echoId, delay).catch(refused(this.id, 'changeDelay', 'delayed'));
    this.delay = delay;
  }

  /** Replaces the job's data. */
  async updateData(data: DataType): Promise<void> {
    await updateJobData(this.#queue, this.#echoId, this.id, data);
    this.data = data;
  }

  /**
   * From a processor: parks the job until `timestamp` (epoch ms). Throw `DelayedError` after it, as
   * in BullMQ; the worker then leaves the job alone.
   */
  async moveToDelayed(timestamp: number, _token?: string): Promise<void> {
    await stepToDelayed(this.#queue, this.#echoId, this.id, this.#hooks, timestamp);
  }

  /**
   * From a processor (or for a job taken by `getNextJob(token)`, with its token): puts the job back
   * to wait, to run again as a new start (a step job's next step); answers 0. Throw `WaitingError`
   * afterwards from a processor. Its `attemptsMade` does not grow.
   */
  async moveToWait(token?: string): Promise<number> {
    if (!this.#hooks) {
      await manualToWait(this.#manual, this.#echoId, this.id, token);
      this.#manual = undefined;
      return 0;
    }
    await stepToWait(this.#queue, this.#echoId, this.id, this.#hooks);
    return 0;
  }

  /**
   * From a processor (or for a job held by hand, with its token): parks the job until its children
   * are done; false when none is open. Throw `WaitingChildrenError` after a true answer from a
   * processor. The wait is a step: `attemptsMade` does not grow.
   */
  async moveToWaitingChildren(token?: string): Promise<boolean> {
    if (!this.#hooks) return manualWaitChildren(this.#queue, this.#echoId, this.id, this.#manual, token);
    return stepToWaitingChildren(this.#queue, this.#echoId, this.id, this.#hooks);
  }

  /** The children's return values, decoded, keyed as BullMQ keys a job (`bull:<queue>:<id>`). */
  async getChildrenValues<CT = unknown>(): Promise<Record<string, CT>> {
    const raw = this.#hooks ? await this.#hooks.context.childrenValues() : undefined;
    return (await childrenValues(this.#queue, this.#echoId, this.#envelope, raw)) as Record<string, CT>;
  }

  /** The failures of children the parent ignored (`ignoreDependencyOnFailure`), by child key. */
  getIgnoredChildrenFailures(): Promise<Record<string, string>> {
    return ignoredFailures(this.#queue, this.#echoId, this.#envelope);
  }

  /** BullMQ's older name of {@link getIgnoredChildrenFailures}. */
  getFailedChildrenValues(): Promise<Record<string, string>> {
    return this.getIgnoredChildrenFailures();
  }

  /** The children by how they ended (processed with values, unprocessed, ignored, failed); with `opts`, a page of each kind asked. */
  getDependencies(): Promise<Dependencies>;
  /** With `opts`, a page of each kind of child asked for (`processed`, `unprocessed`, `ignored`, `failed`, each `{ cursor, count }`). */
  getDependencies(opts: DependenciesOpts): Promise<Dependencies | DependencyPages>;
  getDependencies(opts: DependenciesOpts = {}): Promise<Dependencies | DependencyPages> {
    return dependencyPages(this.#queue, this.#echoId, this.#envelope, opts);
  }

  /** How many children ended each way (the kinds asked, or all four). */
  getDependenciesCount(opts: { readonly processed?: boolean; readonly unprocessed?: boolean; readonly ignored?: boolean; readonly failed?: boolean } = {}): Promise<DependencyCounts> {
    return dependencyCounts(this.#queue, this.#echoId, this.#envelope, opts);
  }

  /** Detaches the job from its parent, which no longer waits for it; false when it had none (or already ended for it). */
  async removeChildDependency(): Promise<boolean> {
    const detached = await removeChildDependency(this.#queue, this.#echoId, this.id, this.parentKey);
    if (detached) {
      this.parent = undefined;
      this.parentKey = undefined;
    }
    return detached;
  }

  /** True while the job waits for its children. */
  async isWaitingChildren(): Promise<boolean> { return (await this.getState()) === 'waiting-children'; }

  /**
   * Resolves with the return value once the job completes; rejects with its failure once it fails
   * for good, or after `ttl` ms.
   */
  async waitUntilFinished(queueEvents: QueueEvents, ttl?: number): Promise<ReturnType> {
    return (await waitFinished(this.#queue, this.#echoId, `${this.queueQualifiedName}:${this.id}`, await queueEvents.echoEvents(), ttl)) as ReturnType;
  }

  /** The job as plain JSON. */
  toJSON(): Record<string, unknown> {
    return jobJson(this);
  }
}
