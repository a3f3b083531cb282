import { InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';

const checkOptions = strictOptions('retryJobs options', { known: ['count', 'state', 'timestamp'] });

/** Checks `retryJobs`'s options: BullMQ's keys, a `count` of at least 1, a `timestamp` in epoch ms. */
export function checkRetryJobs(opts: { readonly count?: number; readonly state?: string; readonly timestamp?: number }): void {
  checkOptions(opts);
  if (opts.count !== undefined && (!Number.isSafeInteger(opts.count) || opts.count < 1)) throw new InvalidArgumentError('count', 'must be an integer >= 1');
  if (opts.state !== undefined && opts.state !== 'failed' && opts.state !== 'completed') throw new InvalidArgumentError('state', "must be 'failed' or 'completed'");
  if (opts.timestamp !== undefined && !Number.isFinite(opts.timestamp)) throw new InvalidArgumentError('timestamp', 'must be epoch ms');
}

/**
 * Runs again the jobs of `state` (failed: Echo's dead set; completed: the rows its retention kept)
 * that finished at or before `timestamp` (BullMQ's bound includes it: a job that failed in the
 * millisecond the caller read its clock is retried), oldest first, reading the set `chunk` rows at
 * a time. Each goes through Echo's own `reprocess` or `reprocessCompleted`; one retried or removed
 * meanwhile is refused by it and left as it is. Answers how many went back.
 */
export async function retryFinishedBefore(queue: EchoQueue<Envelope>, state: 'dead' | 'completed', timestamp: number, chunk: number): Promise<number> {
  const due: string[] = [];
  for (let offset = 0; ; offset += chunk) {
    const page = await queue.listJobs(state, { offset, limit: chunk });
    for (const { record } of page.jobs) if (record?.finishedAt !== undefined && record.finishedAt <= timestamp) due.push(record.id);
    if (page.jobs.length < chunk) break;
  }
  // The lists are newest first; BullMQ retries the oldest first.
  due.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const again = (id: string): Promise<void> => (state === 'dead' ? queue.reprocess(id) : queue.reprocessCompleted(id));
  let retried = 0;
  for (const id of due) {
    if (await again(id).then(() => true, () => false)) retried += 1;
  }
  return retried;
}
