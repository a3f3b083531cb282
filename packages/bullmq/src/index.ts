/**
 * `@echo/bullmq`: BullMQ's public API over Echo's queue, so a BullMQ application switches by
 * changing one import. What Echo cannot honour yet throws {@link NotSupportedError}, naming the
 * option or method; nothing is silently ignored.
 *
 * @packageDocumentation
 */
export { Queue, type QueueOptions } from './queue.js';
export type { CleanType } from './queue/clean.js';
export { getNextMillis, type RepeatStrategy } from './schedulers/next-millis.js';
export { JobScheduler, type JobSchedulerUpsertOptions } from './schedulers/job-scheduler.js';
export { MetricsTime, type Metrics } from './queue/metrics.js';
export type { QueueMeta, StreamsOptions } from './queue/meta.js';
export type { DependencyItem, DependencyList } from './queue/dependency-list.js';
export type { Dependencies, DependenciesOpts, DependencyCounts, DependencyPage, DependencyPages } from './flow/dependencies.js';
export { QueueGetters, type JobSchedulerJson, type JobType } from './queue-getters.js';
export type { WorkerEntry } from './queue-extras.js';
export { Worker, type BackoffStrategy, type Processor, type WorkerListener, type WorkerOptions } from './worker/worker.js';
export { Job, type JobProgress, type JobState, type RetryOptions } from './job.js';
export { QueueEvents, type QueueEventsListener, type QueueEventsOptions } from './queue-events.js';
export { QueueEventsProducer, type QueueEventsProducerOptions } from './queue-events-producer.js';
export { FlowProducer, type FlowJob, type FlowOpts, type FlowProducerOptions, type JobNode } from './flow-producer.js';
export type { NodeOpts } from './flow/get-flow.js';
export type { RemoveOpts } from './flow/remove-tree.js';
export { DelayedError, JobStateError, NotSupportedError, RateLimitError, UnrecoverableError, WaitingChildrenError, WaitingError } from './errors.js';
export type { ConnectionOptions } from './connection.js';
export type { StoredOptions } from './envelope.js';
export type { ChangePriorityOpts } from './job-edits.js';
export type { BackoffOptions, DeduplicationOptions, JobsOptions, KeepJobs, RepeatOptions } from './job-options.js';
