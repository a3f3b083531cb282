/**
 * The queue pillar's plain reads: a builder per command, from the protocol's key builders and checked
 * ids, paired with the parser of its reply. {@link QUEUE_READ_COMMANDS} lists the commands they send,
 * in ACL spelling; the queue host's ACL derives from it.
 */
export { dedup, job, jobAttempts, jobExists, jobLogs, jobToken, jobVerdict, type JobInput, type JobToken, type JobVerdict } from './jobs.js';
export { JOB_SETS, newestPending, scoredUpTo, setPage, setSize, type JobSet, type PageInput, type ScoredJob, type SetInput } from './listing.js';
export { meta, paused } from './meta.js';
export { metricCount, metricPoints, minuteCounts, type MetricInput } from './metrics.js';
export { cronCadence, parseSchedulerRecord, repeatCount, repeatNames, repeatSchedule, scheduler, type CronCadence, type RepeatDue, type RepeatInput, type SchedulerRecord } from './repeat.js';
export { childrenValues, flowOutbox, ignoredFailures, openChildren, type ParentInput } from './flows.js';
export { outcomes } from './outcomes.js';
export { probe, replicated, time } from './server.js';

/**
 * Every command the queue's reads send, in ACL spelling. A protocol test builds each read and
 * checks that its command is here and that every member is sent by one.
 */
export const QUEUE_READ_COMMANDS = ['exists', 'get', 'hexists', 'hget', 'hgetall', 'hmget', 'llen', 'lrange', 'time', 'wait', 'xrevrange', 'zcard', 'zrange'] as const;
