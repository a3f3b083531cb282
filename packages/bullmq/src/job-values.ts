import { JobFailedError, type Queue as EchoQueue, type QueueEvents as EchoQueueEvents } from '@echo/queue';
import type { Envelope } from './envelope.js';
import type { Job } from './job.js';

/** A progress value: a number, or an object. */
export type JobProgress = number | object | string | boolean;

/** The first line of a failure's text (its message, without the stack). */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}

/** A stored progress read back: a number, a JSON value (an object, a boolean), else the text. */
export function parseProgress(raw: string): JobProgress {
  if (raw === '') return 0;
  const asNumber = Number(raw);
  if (Number.isFinite(asNumber)) return asNumber;
  try {
    return JSON.parse(raw) as JobProgress;
  } catch {
    return raw;
  }
}

/** A progress value as Echo's `updateProgress` takes it. */
export function storedProgress(progress: JobProgress): number | string | Readonly<Record<string, unknown>> {
  // Echo's progress is a number, a string or an object; a boolean travels as its JSON text, which
  // reads back (parseProgress) as the boolean.
  const stored = typeof progress === 'boolean' ? JSON.stringify(progress) : progress;
  return stored as number | string | Readonly<Record<string, unknown>>;
}

/**
 * BullMQ's `job.waitUntilFinished`: the result once the job completes, its failure's message once it
 * fails for good. BullMQ checks the job's key once its listener is up: a job already gone (removed at
 * its completion, say) is refused with its text, though Echo may still know how it ended.
 */
export async function waitFinished(queue: EchoQueue<Envelope>, echoId: string, jobKey: string, events: EchoQueueEvents, ttl: number | undefined): Promise<unknown> {
  if ((await queue.getState(echoId)) === 'absent') throw new Error(`Missing key for job ${jobKey}. isFinished`);
  try {
    const finished = await queue.waitUntilFinished(echoId, { events, ...(ttl === undefined ? {} : { timeoutMs: ttl }) });
    return finished.result;
  } catch (error) {
    if (error instanceof JobFailedError) throw new Error(firstLine(error.failure), { cause: error });
    throw error;
  }
}

/** The job as plain JSON, with BullMQ's fields. */
export function jobJson(job: Job): Record<string, unknown> {
  return {
    id: job.id, name: job.name, data: job.data, opts: job.opts, progress: job.progress, attemptsMade: job.attemptsMade,
    returnvalue: job.returnvalue, failedReason: job.failedReason, stacktrace: job.stacktrace, timestamp: job.timestamp,
    processedOn: job.processedOn, finishedOn: job.finishedOn, queueName: job.queueName,
  };
}
