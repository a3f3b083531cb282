import type { Job } from '../job.js';

/**
 * A job as BullMQ's scripts answer it to a worker (`moveToFinished` with `fetchNext`): its stored
 * fields, every one a string, `data` and `opts` as JSON, under BullMQ's field names.
 */
export function rawJobData(job: Job): Readonly<Record<string, string>> {
  return {
    name: job.name,
    data: JSON.stringify(job.data),
    opts: JSON.stringify(job.opts),
    timestamp: String(job.timestamp),
    delay: String(job.delay),
    priority: String(job.priority),
    processedOn: String(job.processedOn ?? ''),
    ats: String(job.attemptsStarted),
    atm: String(job.attemptsMade),
  };
}
