import type { JobId } from '@echo/protocol/queue';
import type { QueueContext } from './core/context.js';
import { heardAdmission } from './enqueue-hook.js';
import { leasesOf, type Leases } from './lease/leases.js';
import { maintenanceOf, type Maintenance } from './lease/maintenance.js';
import type { Progress } from './reads/progress.js';
import type { FlowChild, FlowResult, FlowSpec } from './flows/flow-shape.js';
import { openRuntime, type QueueOptions } from './queue-options.js';
import { bindView, QueueView } from './queue-view.js';
import * as bulk from './admin/bulk.js';
import type { CleanOptions, RetryJobsOptions } from './admin/bulk.js';
import * as controls from './admin/controls.js';
import type { EventsSettings, PriorityOptions, RemoveOptions } from './admin/controls.js';
import * as gates from './admin/gates.js';
import type { RateLimit } from './admin/gates.js';
import * as lanes from './admin/lanes.js';
import type { LaneRateLimit, ReassignResult } from './admin/lanes.js';
import * as adoption from './flows/adoption.js';
import * as flows from './flows/flows.js';
import * as recovery from './lease/recovery.js';
import * as admission from './producer/admission.js';
import type { EnqueueManyItem, EnqueueManyResult, EnqueueOptions, EnqueueResult, LaneEnqueueOptions } from './producer/admission.js';
import * as durability from './producer/durability.js';
import type { ReplicationPolicy } from './producer/durability.js';
import * as repeat from './producer/repeat.js';
import type { RepeatOptions } from './producer/repeat.js';
import * as schedulers from './producer/schedulers.js';
import type { SchedulerCadence, SchedulerInfo, SchedulerOptions } from './producer/schedulers.js';
import * as finished from './reads/finished.js';
import type { KeepPolicy } from './reads/finished.js';

// Past 400 lines for a reason: this is the queue's public front, one short hand-off per verb to the
// module that holds its concept (admin/, producer/, flows/, lease/, reads/), and most of its length is
// those verbs' TSDoc. Moving verbs out would need a new public base class, as QueueView was.

/**
 * One queue on the EchoMQ substrate. Every state change is one EVALSHA of a protocol script; reads
 * are single commands or read scripts (the read side is {@link QueueView}'s). `T` is the payload
 * type, shared with the queue's workers.
 *
 * @example
 * const orders = await Queue.open<Order>('orders', { connect: process.env.REDIS_URL });
 * const { id } = await orders.enqueue({ sku: 'A1', qty: 2 });
 */
export class Queue<T = unknown> extends QueueView<T> {
  readonly #ctx: QueueContext<T>;
  readonly #ownsConnection: boolean;
  readonly #replication: ReplicationPolicy | undefined;
  readonly #leases: Leases<T>;
  readonly #maintenance: Maintenance;
  #closed = false;

  private constructor(ctx: QueueContext<T>, ownsConnection: boolean, replication?: ReplicationPolicy) {
    super();
    bindView(this, ctx);
    this.#ctx = ctx;
    this.#replication = replication;
    this.#ownsConnection = ownsConnection;
    this.#leases = leasesOf(ctx);
    this.#maintenance = maintenanceOf(ctx);
  }

  /**
   * Opens a queue. The name is checked first, so a bad name fails before any socket opens.
   * @throws InvalidNameError, InvalidArgumentError, ConnectError, VersionFenceError
   */
  static async open<T = unknown>(name: string, options: QueueOptions<T> = {}): Promise<Queue<T>> {
    const { ctx, ownsConnection, replication } = await openRuntime(name, options);
    const queue = new Queue<T>(ctx, ownsConnection, replication);
    if (options.keep !== undefined) await queue.setRetention(options.keep);
    return queue;
  }

  // Admission

  /**
   * Admits one job: now, at a time, after a delay, or under an idempotency key. Idempotent by id.
   * @throws NotReplicatedError under `durability: 'replicated'` when no replica confirmed in time.
   */
  enqueue(payload: T, options?: EnqueueOptions): Promise<EnqueueResult> {
    return heardAdmission(this.name, options?.runAt !== undefined || options?.delayMs !== undefined, 1, (trace) => durability.admitDurably(this.#ctx, this.#replication, () => admission.enqueue(this.#ctx, payload, options, trace)));
  }

  /**
   * Admits many jobs in pipelines; verdicts come back in input order, one per item. Under
   * `durability: 'replicated'` one `WAIT` covers the whole call; when it falls short (or the
   * connection drops while it waits), every admitted item is answered as failed with that error
   * (`NotReplicatedError`), under its id, so resending the failed items is an idempotent retry.
   * Each item may carry the options `enqueue` takes (name, attempts, backoff, timeoutMs, priority,
   * runAt/delayMs, dedupId); items without any cost exactly what they did before options existed.
   */
  enqueueMany(items: readonly EnqueueManyItem<T>[]): Promise<EnqueueManyResult[]> {
    return heardAdmission(this.name, false, items.length, () => durability.admitDurably(this.#ctx, this.#replication, () => admission.enqueueMany(this.#ctx, items), durability.unconfirmed));
  }

  /**
   * Admits a job into a fair lane, named by what you have (a tenant id, a customer name: `'tenantA'`,
   * `'acme-corp'`; 1 to 256 characters). Lanes are served in rotation, so one busy tenant cannot
   * starve the others. The wire keys a lane by a branded id: a name maps to one with
   * `laneGroupId(name)` (a name that is a branded id is used as it is), and reads give the name back
   * (`JobRecord.lane`). Every lane verb takes the same names.
   * @throws InvalidArgumentError for an empty or over-long lane name.
   */
  enqueueInLane(lane: string, payload: T, options?: LaneEnqueueOptions): Promise<EnqueueResult> {
    return heardAdmission(this.name, false, 1, (trace) => durability.admitDurably(this.#ctx, this.#replication, () => admission.enqueueInLane(this.#ctx, lane, payload, options, trace)));
  }

  // Manual processing: most callers use Worker, which drives these handles.

  /**
   * The queue's lease handle: claims, settlements, lock extension and children, each one fenced
   * script. The low-level form of processing, for a loop of your own (like {@link events} is for
   * listening); `Worker` and `BatchWorker` run on it.
   *
   * @example
   * const leases = queue.leases();
   * const job = await leases.claim(30_000);
   * if (job) await leases.complete(job);
   */
  leases(): Leases<T> {
    return this.#leases;
  }

  /**
   * The queue's maintenance handle: promote due jobs, recover expired leases, fire due repeats,
   * deliver the flow outbox. A running worker's pump does all of it; call these only without one.
   */
  maintenance(): Maintenance {
    return this.#maintenance;
  }

  /**
   * Runs one scheduled (delayed, or waiting out a retry backoff) job now: it goes to pending, or
   * its lane, at once [TS].
   * @throws GoneError when the job does not exist; StateError("not scheduled") when it is not waiting on a time.
   */
  promote(id: JobId | string): Promise<void> {
    return recovery.rescheduleJob(this.#ctx, id);
  }

  /**
   * Moves a scheduled job's due time to `delayMs` from the server's now [TS]. A parked worker re-arms
   * its wake-up, so an earlier time is honoured.
   * @throws GoneError when the job does not exist; StateError("not scheduled") when it is not waiting
   * on a time; InvalidArgumentError for a negative or fractional delay.
   */
  changeDelay(id: JobId | string, delayMs: number): Promise<void> {
    return recovery.rescheduleJob(this.#ctx, id, delayMs);
  }

  // Controls

  /** Stops every claim; admission and recovery go on. */
  pause(): Promise<void> {
    return controls.pause(this.#ctx);
  }

  /** Lets claims run again. */
  resume(): Promise<void> {
    return controls.resume(this.#ctx);
  }

  /**
   * Sets the queue's rate limit (`{ max, durationMs }`: at most `max` jobs claimed per window),
   * enforced on the server by every claim, so workers in any number of processes share it; `null`
   * lifts it. A changed limit starts a fresh window.
   * @throws InvalidArgumentError for a limit that is not two whole numbers >= 1.
   */
  setRateLimit(limit: RateLimit | null): Promise<void> {
    return gates.setRateLimit(this.#ctx, limit);
  }

  /**
   * Caps the jobs active at once across every worker (`meta.concurrency`), enforced by the claims;
   * `null` lifts it.
   */
  setGlobalConcurrency(concurrency: number | null): Promise<void> {
    return gates.setGlobalConcurrency(this.#ctx, concurrency);
  }

  /**
   * Refuses every claim for `ms` from now, for a handler that got a 429. Needs a rate limit on the
   * queue: answers false, writing nothing, when there is none.
   */
  rateLimit(ms: number): Promise<boolean> {
    return gates.rateLimit(this.#ctx, ms);
  }

  /**
   * [TS] Opens the queue's rate window now, keeping the limit: the next claim starts a fresh window.
   * Answers whether a window was open.
   */
  resetRateLimit(): Promise<boolean> {
    return gates.resetRateLimit(this.#ctx);
  }

  /** Deletes waiting (and optionally scheduled) jobs; answers how many. */
  drain(options?: { includeScheduled?: boolean }): Promise<number> {
    return controls.drain(this.#ctx, options);
  }

  /**
   * Brings dead jobs back to pending, oldest first, in bounded chunks [TS]; answers how many moved.
   * @throws InvalidArgumentError for another state, a bad count or chunk.
   */
  retryJobs(options: RetryJobsOptions): Promise<number> {
    return bulk.retryJobs(this.#ctx, options);
  }

  /**
   * Deletes finished jobs (`completed` retained ones, or `failed`/`dead`) that finished at least
   * `olderThanMs` ago, oldest first, up to `limit` (default 1000), in bounded chunks [TS]; answers
   * how many.
   * @throws InvalidArgumentError for another state, a negative age or a bad limit.
   */
  clean(options: CleanOptions): Promise<number> {
    return bulk.clean(this.#ctx, options);
  }

  /** Deletes a paused queue entirely. */
  obliterate(options?: { force?: boolean; budget?: number }): Promise<void> {
    return controls.obliterate(this.#ctx, options);
  }

  /** Replaces a job's payload. */
  updateData(id: string, payload: T): Promise<void> {
    return controls.updateData(this.#ctx, id, payload);
  }

  /**
   * Records a job's progress and publishes the `progress` event. A number or an object keeps its
   * type for listeners: read it back with `progressValue(event)`.
   * @throws InvalidArgumentError for a non-finite number or an object JSON cannot encode; GoneError when the job does not exist.
   */
  updateProgress(id: string, progress: Progress): Promise<void> {
    return controls.updateProgress(this.#ctx, id, progress);
  }

  /** Appends a log line, optionally keeping only the newest `keep`. */
  addLog(id: string, line: string, keep?: number): Promise<number> {
    return controls.addLog(this.#ctx, id, line, keep);
  }

  /**
   * [TS] Frees the idempotency key `dedupId` before its job ends, or, with `id`, only while it names
   * that job; answers whether it was freed.
   * @throws InvalidNameError for a key outside `A-Z a-z 0-9 . _ -`; MalformedIdError for a bad id.
   */
  releaseDedup(dedupId: string, id?: string): Promise<boolean> {
    return controls.releaseDedup(this.#ctx, dedupId, id);
  }

  /** Keeps a job's newest `keep` log lines, or deletes its log (`keep` 0, the default); answers the lines left. */
  clearLogs(id: string, keep?: number): Promise<number> {
    return controls.clearLogs(this.#ctx, id, keep);
  }

  /**
   * Gives a job a new priority (higher first): a waiting job moves at once, after the jobs waiting
   * at that priority or, with `lifo`, ahead of them (`'moved'`); any other job keeps its place and
   * runs at the new priority when it next waits (`'kept'`).
   */
  changePriority(id: string, priority: number, options?: PriorityOptions<T>): Promise<'moved' | 'kept'> {
    return controls.changePriority(this.#ctx, id, priority, options);
  }

  /**
   * Deletes a job unless a worker holds its lock. A flow parent still waiting on children is
   * refused (remove them first, or drain) [TS] unless `held` is set (the caller removes the tree);
   * removing a child counts its parent (in this queue) down as if the child had finished, so the
   * parent still runs (a parent in another queue: {@link forgetChildren}).
   * @throws LockedError when a worker holds it; StateError("parent awaiting children").
   */
  remove(id: string, options?: RemoveOptions): Promise<void> {
    return controls.removeJob(this.#ctx, id, options);
  }

  /** Brings a dead job back to pending. */
  reprocess(id: string): Promise<void> {
    return recovery.reprocess(this.#ctx, id);
  }

  /**
   * [TS] Runs a completed job again: a row kept by the completed retention goes back to pending,
   * its result and finish time cleared (its attempts go on counting).
   * @throws GoneError when the job does not exist (or its row was not kept); StateError("not completed")
   * when it is in another state; nothing changes then.
   */
  reprocessCompleted(id: string): Promise<void> {
    return recovery.reprocessCompleted(this.#ctx, id);
  }

  // Lanes

  /** Caps a lane's in-flight jobs (the lane named as in {@link enqueueInLane}). */
  laneLimit(lane: string, limit: number): Promise<void> {
    return lanes.laneLimit(this.#ctx, lane, limit);
  }

  /**
   * Sets a lane's own rate limit [TS] (`{ max, durationMs }`: at most `max` of its jobs claimed per
   * window), enforced on the server by the lane claims on top of the queue's limit
   * ({@link setRateLimit}), so workers in any number of processes share it; `null` lifts it. A lane
   * out of budget stays in rotation and is passed over until its window reopens; a set limit
   * starts a fresh window.
   * @throws InvalidArgumentError for a limit that is not two whole numbers >= 1, or a bad lane name.
   */
  laneRateLimit(lane: string, limit: LaneRateLimit | null): Promise<void> {
    return lanes.laneRateLimit(this.#ctx, lane, limit);
  }

  /** Takes a lane out of rotation. */
  lanePause(lane: string): Promise<void> {
    return lanes.lanePause(this.#ctx, lane);
  }

  /** Returns a paused lane to rotation. */
  laneResume(lane: string): Promise<void> {
    return lanes.laneResume(this.#ctx, lane);
  }

  /** Sets a lane's weight for weighted claims. */
  laneWeight(lane: string, weight: number): Promise<void> {
    return lanes.laneWeight(this.#ctx, lane, weight);
  }

  /** Moves a pending job to another lane. */
  laneReassign(id: string, lane: string): Promise<ReassignResult> {
    return lanes.laneReassign(this.#ctx, id, lane);
  }

  /** Deletes a lane's waiting jobs. */
  laneDrain(lane: string): Promise<number> {
    return lanes.laneDrain(this.#ctx, lane);
  }

  // Retention

  /**
   * Sets the queue's finished-job retention [TS], stored in meta for every process: completed jobs
   * kept (default none: the row is deleted at completion) and dead jobs kept (default the newest
   * 10,000); each by `count` (newest finished first) and/or `ageMs`. Trimming runs inside the
   * completing and dead-lettering scripts, a few members per call.
   * @throws InvalidArgumentError for a negative or fractional bound.
   */
  setRetention(keep: KeepPolicy): Promise<void> {
    return finished.setRetention(this.#ctx, keep);
  }

  // Repeat

  /**
   * The protocol's repeat verb (queue.md §10), the low-level form of {@link upsertScheduler}:
   * registers a job enqueued every `everyMs`; an existing name is left as it is (no update). Use
   * `upsertScheduler` to schedule: it also takes cron patterns, time zones, a window and a run
   * limit, and updates in place. Both live in the same registry, so `getSchedulers` and
   * `removeScheduler` see repeats too.
   */
  registerRepeat(name: string, options: RepeatOptions<T>): Promise<'registered' | 'exists'> {
    return repeat.registerRepeat(this.#ctx, name, options);
  }

  /** Stops a repeating job registered by {@link registerRepeat} (`removeScheduler` does the same). */
  cancelRepeat(name: string): Promise<'cancelled' | 'absent'> {
    return repeat.cancelRepeat(this.#ctx, name);
  }

  /** How many repeats are registered. */
  repeatCount(): Promise<number> {
    return repeat.repeatCount(this.#ctx);
  }

  /**
   * How you schedule jobs (BullMQ's `repeat` / `upsertJobScheduler`): creates or updates scheduler
   * `id`, enqueueing `template` every `everyMs` (first after `firstInMs`, default one cadence), or on
   * a cron pattern in a time zone, with an optional window (`startAt`, `endAt`) and run `limit`
   * [TS]. An upsert, so a deploy may declare every scheduler at start: an unchanged cadence keeps
   * its next run. Running workers fire due occurrences, each exactly once across processes.
   * @throws UnknownOptionError for a cadence or option key it does not read (BullMQ's `pattern`, `every`…).
   */
  upsertScheduler(id: string, cadence: SchedulerCadence, template: T, options?: SchedulerOptions): Promise<'created' | 'updated'> {
    return schedulers.upsertScheduler(this.#ctx, id, cadence, template, options);
  }

  /** Every job scheduler of the queue (repeats included), soonest first. */
  getSchedulers(): Promise<SchedulerInfo<T>[]> {
    return schedulers.getSchedulers(this.#ctx);
  }

  /** Removes a job scheduler; answers whether there was one. */
  removeScheduler(id: string): Promise<boolean> {
    return schedulers.removeScheduler(this.#ctx, id);
  }

  // Flows

  /** Adds a flow: a parent held until its children (in this or other queues, nested) finish. */
  addFlow(spec: FlowSpec<T>): Promise<FlowResult> {
    return flows.addFlow(this.#ctx, spec);
  }

  /** Adds many flows; one that fails to land is left out of the answer without stopping the rest. */
  addFlowBulk(specs: readonly FlowSpec<T>[], onError?: (index: number, error: unknown) => void): Promise<FlowResult[]> {
    return flows.addFlowBulk(this.#ctx, specs, onError);
  }

  /**
   * Adds children to job `parentId` of this queue, which already exists (in any state but finished):
   * its open-child count grows by them, so a held parent waits for them too, and a running step job
   * waits for them once it calls `moveToWaitingChildren`. Children may live in other queues and
   * have children of their own, as in {@link addFlow}. Answers the landed children.
   * @throws StateError (`parent missing`, `parent finished`) with nothing written; InvalidArgumentError
   *   when a child id in this queue already names a job.
   */
  addChildren(parentId: JobId | string, children: readonly FlowChild<T>[]): Promise<FlowResult[]> {
    return adoption.adoptChildren(this.#ctx, parentId, children);
  }

  /**
   * Detaches flow child `id` from its parent (in this queue): the parent stops waiting for it, and
   * runs when it was its last open child; the job runs on as a lone job and reports to no parent.
   * Answers false when the job has no parent or already settled for it.
   * @throws GoneError when the job does not exist; StateError (`parent missing`, `parent in another queue`).
   */
  detachChild(id: JobId | string): Promise<boolean> {
    return adoption.detachChild(this.#ctx, id);
  }

  /**
   * [TS] Job `parentId` of this queue stops waiting for `count` open children that left it from
   * another queue (removed there, where one step cannot reach this queue): its open-child count
   * drops by them, and a parent waiting on nothing more is released to pending. Answers the
   * open-child count left.
   * @throws StateError (`parent missing`, `parent finished`) with nothing changed.
   */
  forgetChildren(parentId: JobId | string, count: number): Promise<number> {
    return adoption.forgetChildren(this.#ctx, parentId, count);
  }

  // Events

  /**
   * Sets which lifecycle events the queue publishes: the chatty `waiting`/`active`/`drained`
   * (off by default) and the events journal (off by default). Stored in the queue's meta, so every
   * producer and worker of the queue follows it from its next step.
   */
  setEvents(settings: EventsSettings): Promise<void> {
    return controls.setEvents(this.#ctx, settings);
  }

  /** Closes the connection if the queue opened it. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#ownsConnection) await this.#ctx.conn.close();
  }

  /** True once {@link close} has been called. */
  get closed(): boolean {
    return this.#closed;
  }
}
