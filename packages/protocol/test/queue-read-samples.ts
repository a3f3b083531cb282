import { mintId, queueKeys, reads, type JobId, type QueueKeys } from './support.js';

/** Sample input every queue read is built from, in the unit, live and ACL tests alike. */
export const keys = queueKeys('orders');
export const id: JobId = mintId('JOB');

/** The repeat name and dedup id the samples use. */
export const SAMPLE = { scheduler: 'nightly', dedupId: 'order-1' } as const;

/**
 * One read per builder of `reads.queue`, on the queue keys `on` and job `job` (also the flow parent).
 * The ACL test checks this covers every builder, so a read added without a sample fails there.
 */
export function sampleReads(on: QueueKeys, job: JobId): Readonly<Record<string, reads.Read<unknown>>> {
  return {
    job: reads.queue.job({ keys: on, id: job }),
    jobExists: reads.queue.jobExists({ keys: on, id: job }),
    jobLogs: reads.queue.jobLogs({ keys: on, id: job }),
    jobAttempts: reads.queue.jobAttempts({ keys: on, id: job }),
    jobVerdict: reads.queue.jobVerdict({ keys: on, id: job }),
    jobToken: reads.queue.jobToken({ keys: on, id: job }),
    dedup: reads.queue.dedup({ keys: on, dedupId: SAMPLE.dedupId }),
    setSize: reads.queue.setSize({ keys: on, set: 'dead' }),
    setPage: reads.queue.setPage({ keys: on, set: 'deadAt', offset: 0, limit: 10, newestFirst: true }),
    newestPending: reads.queue.newestPending({ keys: on, n: 5 }),
    scoredUpTo: reads.queue.scoredUpTo({ keys: on, set: 'completed', cutoff: 1000, limit: 10 }),
    meta: reads.queue.meta({ keys: on }),
    paused: reads.queue.paused({ keys: on }),
    metricCount: reads.queue.metricCount({ keys: on, which: 'completed' }),
    metricPoints: reads.queue.metricPoints({ keys: on, which: 'failed' }),
    minuteCounts: reads.queue.minuteCounts({ keys: on, which: 'failed' }),
    repeatNames: reads.queue.repeatNames({ keys: on }),
    repeatCount: reads.queue.repeatCount({ keys: on }),
    repeatSchedule: reads.queue.repeatSchedule({ keys: on }),
    scheduler: reads.queue.scheduler({ keys: on, name: SAMPLE.scheduler }),
    cronCadence: reads.queue.cronCadence({ keys: on, name: SAMPLE.scheduler }),
    childrenValues: reads.queue.childrenValues({ keys: on, parent: job }),
    ignoredFailures: reads.queue.ignoredFailures({ keys: on, parent: job }),
    openChildren: reads.queue.openChildren({ keys: on, parent: job }),
    flowOutbox: reads.queue.flowOutbox({ keys: on, count: 100 }),
    outcomes: reads.queue.outcomes({ keys: on }),
    time: reads.queue.time(),
    probe: reads.queue.probe({ keys: on }),
    replicated: reads.queue.replicated({ replicas: 1, timeoutMs: 20 }),
    wake: reads.queue.wake({ key: on.wake, timeoutMs: 20 }),
  };
}

/** The samples on queue `orders`. */
export const SAMPLE_READS = sampleReads(keys, id);
