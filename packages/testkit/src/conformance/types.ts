/**
 * The structural shapes the conformance suite drives. The testkit imports no Echo package (that
 * would close a dependency cycle), so every implementation is reached through these: each lists
 * exactly the members the scenarios call, typed loosely enough that the real classes fit as they
 * are (`Queue` is a `QueueLike`, `Worker` a `WorkerLike`, `Bus` a `BusLike`). Members are declared
 * as methods on purpose: method parameters compare bivariantly, so a branded `JobId` parameter on
 * the real class still fits a `string` one here.
 */

import type { BusLike, IdKit } from './types-bus.js';

/** A command argument as the wire takes it. */
export type WireArg = string | number;

/** Counters a wire keeps about itself; the scenarios read them to prove what did or did not go out. */
export interface WireStats {
  /** Single calls sent (scripts and plain commands). */
  readonly commands: number;
  /** `SCRIPT LOAD`s after a NOSCRIPT reply. */
  readonly scriptLoads: number;
  /** Version-fence checks completed. */
  readonly fences: number;
}

/** The fenced connection the target's queues speak through. */
export interface WireLike {
  /** A plain command, through the same fence gate and error mapping as every transition. */
  command(name: string, ...args: WireArg[]): Promise<unknown>;
  /** Runs a catalogued script by name (`is_maxed`, …), for the scenarios that judge a script's own reply. */
  run?(script: string, keys: readonly string[], args?: readonly WireArg[]): Promise<unknown>;
  /** The wire's counters. */
  stats?(): WireStats;
}

/** One server node, for what must be asked of the node itself (`CLIENT LIST`, `PUBSUB NUMSUB`). */
export interface NodeLike {
  command(name: string, ...args: WireArg[]): Promise<unknown>;
}

/** A second connection that is subscribed and runs commands on the same socket (RESP3). */
export interface SubscriberLike {
  command(name: string, ...args: WireArg[]): Promise<unknown>;
  pipeline(commands: readonly (readonly [string, ...WireArg[]])[]): Promise<readonly BatchResultLike[]>;
  /** Subscribes to channels; `onMessage` hears every message on them. Resolves once confirmed. */
  subscribe(channels: readonly string[], options: { readonly onMessage: (message: { readonly channel: string; readonly payload: string }) => void }): Promise<unknown>;
  close(): Promise<void>;
}

/** One member of a pipeline: its reply or its error. */
export type BatchResultLike = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error };

/** Every key of one queue that the scenarios read directly (protocol.md §3.2). */
export interface QueueKeysLike {
  readonly queue: string;
  readonly base: string;
  readonly pending: string;
  readonly active: string;
  readonly schedule: string;
  readonly dead: string;
  readonly meta: string;
  readonly ring: string;
  readonly wake: string;
  readonly paused: string;
  readonly gactive: string;
  readonly glimit: string;
  readonly gweight: string;
  readonly repeat: string;
  readonly flowOutbox: string;
  readonly metricsCompleted: string;
  readonly metricsFailed: string;
  readonly metricsCompletedData: string;
  readonly metricsFailedData: string;
  readonly events: string;
  readonly jobRoot: string;
  readonly laneRoot: string;
  job(id: string): string;
  jobSub(id: string, sub: string): string;
  lane(group: string): string;
  dedup(dedupId: string): string;
  repeatRecord(name: string): string;
}

/** Payload text in and out; the scenarios use it to know what a row's `payload` field must hold. */
export interface CodecLike {
  encode(value: unknown): string;
  decode(raw: string): unknown;
}

/** A flow child's link to its parent. */
export interface ParentLinkLike {
  readonly id: string;
  readonly queue: string;
  readonly policy: string;
}

/** What a settlement needs: the id, the fencing token and, for a flow child, the parent link. */
export interface HeldJobLike {
  readonly id: string;
  readonly attempts: number;
  readonly parent?: ParentLinkLike | undefined;
}

/** A leased job. */
export interface ClaimedJobLike {
  readonly id: string;
  readonly payload: unknown;
  readonly rawPayload: string;
  readonly attempts: number;
  readonly group: string | undefined;
  readonly parent: ParentLinkLike | undefined;
}

/** A job row, decoded. */
export interface JobRecordLike {
  readonly id: string;
  readonly state: string;
  readonly attempts: number;
  readonly payload: unknown;
  readonly rawPayload: string;
  readonly group: string | undefined;
  readonly lastError: string | undefined;
  readonly progress: string | undefined;
  readonly stalled: number;
}

/** The verdict of one admission. */
export interface EnqueueResultLike {
  readonly status: 'enqueued' | 'duplicate';
  readonly id: string;
  readonly existingId?: string;
}

/** One item of a bulk admission: its verdict, or the error that refused it. */
export type EnqueueManyResultLike = EnqueueResultLike | { readonly status: 'failed'; readonly id: string; readonly error: Error };

/** Options of one admission. */
export interface EnqueueOptionsLike {
  readonly id?: string;
  readonly delayMs?: number;
  readonly dedupId?: string;
}

/** A lifecycle event as published on `emq:{q}:events`. */
export interface LifecycleEventLike {
  readonly event: string;
  readonly job: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** A queue's event listener, on its own subscribed connection. */
export interface QueueEventsLike {
  on(listener: (event: LifecycleEventLike) => void): () => void;
  waitFor(id: string, timeoutMs?: number): Promise<LifecycleEventLike>;
  close(): Promise<void>;
}

/** One queue: exactly the verbs and reads the scenarios call. */
export interface QueueLike {
  readonly name: string;
  readonly keys: QueueKeysLike;
  readonly codec: CodecLike;

  enqueue(payload: unknown, options?: EnqueueOptionsLike): Promise<EnqueueResultLike>;
  enqueueMany(items: readonly { readonly payload: unknown; readonly id?: string }[]): Promise<readonly EnqueueManyResultLike[]>;
  enqueueInLane(group: string, payload: unknown, options?: { readonly id?: string }): Promise<EnqueueResultLike>;

  claim(leaseMs: number): Promise<ClaimedJobLike | undefined>;
  claimBatch(size: number, leaseMs: number): Promise<readonly ClaimedJobLike[]>;
  laneClaim(leaseMs: number): Promise<ClaimedJobLike | undefined>;
  laneWeightedClaim(leaseMs: number): Promise<readonly ClaimedJobLike[]>;
  laneBatchClaim(leaseMs: number): Promise<readonly ClaimedJobLike[]>;

  complete(job: HeldJobLike, result?: string): Promise<void>;
  retry(job: HeldJobLike, delayMs: number, maxAttempts: number, error: string): Promise<'scheduled' | 'dead'>;
  delay(job: HeldJobLike, until: number): Promise<void>;
  extendLock(job: HeldJobLike, leaseMs: number): Promise<void>;
  extendLocks(jobs: readonly HeldJobLike[], leaseMs: number): Promise<readonly string[]>;

  promote(limit?: number): Promise<number>;
  reap(limit?: number): Promise<number>;
  sweepStalled(options?: { maxStalled?: number }): Promise<{ readonly recovered: readonly string[]; readonly dead: readonly string[] }>;
  reapGroup(group: string, limit?: number): Promise<number>;

  pause(): Promise<void>;
  resume(): Promise<void>;
  drain(): Promise<number>;
  obliterate(options?: { force?: boolean }): Promise<void>;
  updateData(id: string, payload: unknown): Promise<void>;
  updateProgress(id: string, progress: string | number): Promise<void>;
  addLog(id: string, line: string, keep?: number): Promise<number>;
  getLogs(id: string): Promise<readonly string[]>;
  remove(id: string, options?: { dedupId?: string }): Promise<void>;
  reprocess(id: string): Promise<void>;

  laneLimit(group: string, limit: number): Promise<void>;
  lanePause(group: string): Promise<void>;
  laneResume(group: string): Promise<void>;
  laneWeight(group: string, weight: number): Promise<void>;
  laneReassign(id: string, group: string): Promise<string>;
  laneDrain(group: string): Promise<number>;
  laneDepths(groups: readonly string[]): Promise<readonly number[]>;

  counts(...names: string[]): Promise<Readonly<Record<string, number>>>;
  getState(id: string): Promise<string>;
  getJob(id: string): Promise<JobRecordLike | undefined>;
  getMetrics(which: 'completed' | 'failed'): Promise<{ readonly count: number; readonly dataPoints: number }>;
  browse(n: number): Promise<readonly string[]>;
  getDedupJobId(dedupId: string): Promise<string | undefined>;
  isMaxed(): Promise<boolean>;

  registerRepeat(name: string, options: { everyMs: number; template: unknown; firstInMs?: number }): Promise<'registered' | 'exists'>;
  fireDueRepeats(): Promise<number>;
  repeatCount(): Promise<number>;

  addFlow(spec: FlowSpecLike): Promise<FlowResultLike>;
  addFlowBulk(specs: readonly FlowSpecLike[], onError?: (index: number, error: unknown) => void): Promise<readonly FlowResultLike[]>;
  childrenValues(parentId: string): Promise<Readonly<Record<string, string>>>;
  ignoredFailures(parentId: string): Promise<Readonly<Record<string, string>>>;
  dependencies(parentId: string): Promise<number>;
  /** Delivers this queue's cross-queue flow signals to their parents (the sweep a worker's pump runs). */
  deliverOutbox(): Promise<{ readonly delivered: number; readonly poisoned: boolean }>;
  /** Lets a fail-parent death climb past a parent that has a parent of its own (what a worker does after a dead child). */
  propagateFlowFailure(parentId: string, error: string): Promise<boolean>;

  events(): Promise<QueueEventsLike>;
}

/** One child of a flow node; `children` makes it a node of its own. */
export interface FlowChildLike {
  readonly payload: unknown;
  readonly id?: string;
  /** The child's queue; the parent's when omitted. */
  readonly queue?: string;
  readonly ignoreDependencyOnFailure?: boolean;
  readonly children?: readonly FlowChildLike[];
}

/** A flow: a parent held until its children finish. */
export interface FlowSpecLike {
  readonly parent: { readonly payload: unknown; readonly id?: string };
  readonly children: readonly FlowChildLike[];
}

/** A landed flow: each node's id and queue, nested. */
export interface FlowResultLike {
  readonly id: string;
  readonly queue: string;
  readonly children: readonly FlowResultLike[];
}

/** A retry delay curve, as plain data (queue.md §4.2). */
export type BackoffLike = { readonly type: 'fixed'; readonly ms: number } | { readonly type: 'exponential'; readonly base: number; readonly cap: number };

/** The worker options the scenarios set. */
export interface WorkerOptionsLike {
  readonly concurrency?: number;
  readonly leaseMs?: number;
  readonly maxAttempts?: number;
  readonly backoff?: BackoffLike;
  readonly blockMs?: number;
  readonly maintenanceMs?: number;
}

/** A batch member's verdict. */
export type BatchVerdictLike = 'ok' | { readonly error: string } | { readonly delay: number };

/** Every member of a batch in exactly one bucket. */
export interface BatchPartitionLike {
  readonly completed: readonly string[];
  readonly retried: readonly string[];
  readonly dead: readonly string[];
  readonly delayed: readonly string[];
}

/** The batch worker options the scenarios set. */
export interface BatchWorkerOptionsLike extends Omit<WorkerOptionsLike, 'concurrency'> {
  readonly size?: number;
  readonly shape?: { readonly minSize: number; readonly timeoutMs: number };
  onBatch?(partition: BatchPartitionLike): void;
}

/** A running worker. */
export interface WorkerLike {
  close(): Promise<void>;
}

/** Runs one job: return to complete it, throw to retry it. */
export type HandlerLike = (job: ClaimedJobLike) => unknown;

/** Runs one batch: verdicts per member id (a member missing is retried). */
export type BatchHandlerLike = (jobs: readonly ClaimedJobLike[]) => ReadonlyMap<string, BatchVerdictLike> | 'ok' | Promise<ReadonlyMap<string, BatchVerdictLike> | 'ok'>;

/** What a check of a cancel token answers. */
export type CancelCheckLike = { readonly cancelled: false } | { readonly cancelled: true; readonly reason: string };

/** The host-side cancel token of queue.md §6.5. */
export interface CancelTokenLike {
  readonly signal: AbortSignal;
  cancel(reason?: string): void;
  check(): CancelCheckLike;
  throwIfCancelled(): void;
}

/** The batch shaper's decision. */
export type ShapeDecisionLike = { readonly action: 'flush'; readonly size: number } | { readonly action: 'wait' };

/** Pure host functions some scenarios judge (the (pure) marker in conformance.md). */
export interface HostKit {
  cancelToken(): CancelTokenLike;
  decideBatch(depth: number, elapsedMs: number, minSize: number, timeoutMs: number): ShapeDecisionLike;
  partitionBatch(
    ids: readonly string[],
    settled: ReadonlyMap<string, { readonly verdict: BatchVerdictLike; readonly outcome: 'ok' | 'scheduled' | 'dead' | 'stale' | 'gone' }>,
  ): BatchPartitionLike;
}

/** A pool of queue handles on one queue name, each on its own connection. */
export interface PoolLike {
  readonly members: readonly QueueLike[];
  close(): Promise<void>;
}

/**
 * What a conformance run drives: a real server through one implementation. The required members
 * are the harness's own needs; each optional member is a capability, and a scenario that needs one
 * the target lacks is reported as skipped with the capability's name, never passed.
 */
export interface ConformanceTarget {
  /** The fenced connection the queues share. */
  readonly wire: WireLike;
  /** `SCRIPT FLUSH` on every node that holds scripts, so the NOSCRIPT path runs next. */
  flushScripts(): Promise<void>;
  /** Every key matching `pattern` on every master (SCAN, never KEYS). */
  scanKeys(pattern: string): Promise<string[]>;
  /** A fresh branded id of the namespace (`JOB`, `PRT`, `ORD`, `EVT`). */
  mintId(namespace: string): string;

  /** Opens a queue on the shared wire. */
  openQueue?(name: string): Promise<QueueLike>;
  startWorker?(queue: QueueLike, handler: HandlerLike, options?: WorkerOptionsLike): Promise<WorkerLike>;
  startBatchWorker?(queue: QueueLike, handler: BatchHandlerLike, options?: BatchWorkerOptionsLike): Promise<WorkerLike>;
  /** Opens `size` handles on queue `name`, each on a connection of its own. */
  openPool?(name: string, size: number): Promise<PoolLike>;
  /** Opens the bus of a queue. */
  openBus?(name: string): Promise<BusLike>;
  /** A new connection that may subscribe and run commands on the same socket. */
  openSubscriber?(): Promise<SubscriberLike>;
  /** Every master, each answering commands itself. */
  nodes?(): Promise<readonly NodeLike[]>;
  readonly host?: HostKit;
  readonly ids?: IdKit;
}
