/**
 * `@echo/queue`: jobs on the EchoMQ substrate. A {@link Queue} admits and controls jobs; a
 * {@link Worker} leases, runs and settles them; nothing is lost when a worker dies, and a worker
 * that lost its lease cannot settle the job any more.
 *
 * @packageDocumentation
 */
export { Queue, type QueueOptions } from './queue.js';
export type { EnqueueManyResult, EnqueueOptions, EnqueueResult } from './admission.js';
export type { CompleteManyOutcome, CompleteOptions, HeldJob, RetryOutcome } from './settlement.js';
export type { ClaimOptions } from './claims.js';
export type { StalledSweep } from './recovery.js';
export type { ReassignResult } from './lanes.js';
export type { CountName } from './reads.js';
export type { RepeatOptions } from './repeat.js';
export type { ClaimedJob, JobPosition, JobRecord, ParentLink, ParentPolicy, RowState } from './job.js';
export { jsonCodec, rawCodec, type Codec } from './codec.js';
export { backoffDelay, exponential, fixed, jitter, type Backoff } from './backoff.js';
export { CancelledError, CancelToken, type CancelCheck } from './cancel.js';
export { decideBatch, type ShapeDecision } from './shaping.js';
export { partitionBatch, type BatchPartition, type BatchVerdict, type SettleOutcome } from './partition.js';
export { QueueEvents, type EventListener } from './events.js';
export { Worker, type Handler, type JobContext } from './worker.js';
export { BatchWorker, type BatchHandler, type BatchVerdicts, type BatchWorkerOptions } from './batch-worker.js';
export type { WorkerStats } from './runtime.js';
export type { ClaimSource, StalledOptions, WorkerOptions } from './worker-options.js';
export type { PumpTick } from './pump.js';
export { FlowCycleError, FlowTooDeepError, MAX_FLOW_DEPTH, type FlowChild, type FlowResult, type FlowSpec } from './flow-shape.js';
export type { OutboxSweep } from './flows.js';
