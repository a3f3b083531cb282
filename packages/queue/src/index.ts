/**
 * `@echo/queue`: jobs on the EchoMQ substrate. A {@link Queue} admits and controls jobs; a
 * {@link Worker} leases, runs and settles them; nothing is lost when a worker dies, and a worker
 * that lost its lease cannot settle the job any more.
 *
 * @packageDocumentation
 */
export { Queue } from './queue.js';
export { QueueView } from './queue-view.js';
export type { QueueOptions } from './queue-options.js';
export { DEFAULT_KEY_RETENTION_MS, type EnqueueManyItem, type EnqueueManyResult, type EnqueueOptions, type EnqueueResult, type JobOptions, type LaneEnqueueOptions } from './producer/admission.js';
export { DEFAULT_FAILED_KEEP, JobFailedError, JobNotFoundError, WaitTimeoutError, type Finished, type KeepBound, type KeepPolicy } from './reads/finished.js';
export { Leases } from './lease/leases.js';
export type { ClaimOptions, CompleteManyOutcome, CompleteOptions, HeldJob, LaneBatchOptions, RetryOutcome, RoundOptions, RoundResult, SettleOptions, WakeChannel, WakeClaim } from './lease/options.js';
export { Maintenance, type PromoteNext, type StalledSweep } from './lease/maintenance.js';
export type { LaneRateLimit, ReassignResult } from './admin/lanes.js';
export { laneGroupId, MAX_LANE_NAME } from './core/lane-names.js';
export type { RateLimit } from './admin/gates.js';
export type { CleanOptions, RetryJobsOptions } from './admin/bulk.js';
export type { CountName } from './reads/reads.js';
export type { WorkerInfo } from './reads/workers.js';
export type { MinuteCount } from './reads/history.js';
export { LIST_STATES, type JobPage, type ListedJob, type ListOptions, type ListState } from './reads/listing.js';
export type { RepeatOptions } from './producer/repeat.js';
export type { SchedulerCadence, SchedulerInfo, SchedulerOptions } from './producer/schedulers.js';
export type { Durability } from './producer/durability.js';
export { DEFAULT_MAX_PAYLOAD_BYTES, PayloadTooLargeError } from './producer/payload-limit.js';
export type { ClaimedJob, JobPosition, JobRecord, ParentLink, ParentPolicy, RowState } from './core/job.js';
export { decodeResult, encodeResult, jsonCodec, rawCodec, resultValue, type Codec } from './core/codec.js';
export { backoffDelay, exponential, fixed, jitter, type Backoff } from './core/backoff.js';
export { CancelledError, CancelToken, type CancelCheck } from './worker/cancel.js';
export type { BatchPartition, BatchVerdict } from './worker/partition.js';
export { QueueEvents, type EventListener } from './reads/events.js';
export { EventsJournal, type JournalEntry, type JournalOptions, type JournalStart } from './reads/journal.js';
export type { EventsSettings, PriorityOptions, RemoveOptions } from './admin/controls.js';
export { progressValue, type Progress } from './reads/progress.js';
export { Worker, type DelayUntil, type Handler, type JobContext, type WorkerStartOptions } from './worker/worker.js';
export { WorkerShell } from './worker/shell.js';
export { ResultEncodingError } from './worker/result-encoding.js';
export { BatchWorker, type BatchHandler, type BatchShape, type BatchVerdicts, type BatchWorkerOptions } from './worker/batch-worker.js';
export type { LeaseSource, WorkerStats } from './worker/runtime.js';
export type { BackoffFunction, ClaimSource, ResolvedWorkerOptions, StalledOptions, WorkerOptions } from './worker/worker-options.js';
export { JobStalledError, JobTimeoutError, UnrecoverableError } from './worker/errors.js';
export type { WorkerEvents } from './worker/events.js';
export type { PumpTick } from './worker/pump.js';
export { FlowCycleError, FlowTooDeepError, MAX_FLOW_DEPTH, type FlowChild, type FlowResult, type FlowSpec } from './flows/flow-shape.js';
export type { OutboxSweep } from './flows/flows.js';
