/**
 * The queue pillar's plain reads: a builder per command, from the protocol's key builders and checked
 * ids, paired with the parser of its reply. Each names its command
 * where it is built; the queue's ACL rules are generated from those names (scripts/gen-acl.ts).
 */
export { dedup, job, jobAttempts, jobExists, jobLogs, jobToken, jobVerdict, type JobInput, type JobToken, type JobVerdict } from './jobs.js';
export { JOB_SETS, newestPending, scoredUpTo, setPage, setSize, type JobSet, type PageInput, type ScoredJob, type SetInput } from './listing.js';
export { meta, paused } from './meta.js';
export { metricCount, metricPoints, minuteCounts, type MetricInput } from './metrics.js';
export { cronCadence, parseSchedulerRecord, repeatCount, repeatNames, repeatSchedule, scheduler, type CronCadence, type RepeatDue, type RepeatInput, type SchedulerRecord } from './repeat.js';
export { childrenValues, flowOutbox, ignoredFailures, openChildren, type ParentInput } from './flows.js';
export { outcomes } from './outcomes.js';
export { probe, replicated, time } from './server.js';
export { wake, type WakeInput } from './wake.js';
