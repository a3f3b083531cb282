import { JobStalledError, type Queue as EchoQueue, type Worker as EchoWorker, type ClaimedJob, type JobContext } from '@echo/queue';
import { attemptsMadeOf, openEnvelope, type Envelope } from '../envelope.js';
import { Job } from '../job.js';
import { rememberedJobId } from '../ids.js';
import { withStack } from '../job-options.js';
import type { AttemptDelays } from './attempt-delays.js';
import type { InFlight } from './in-flight.js';
import { STALLED_REASON } from '../stalled-reason.js';

/**
 * What the event bridge reads and writes of a BullMQ worker: its bookkeeping of the jobs it runs
 * (by Echo id), and its own emitter.
 */
export interface WorkerBook<D, R, N extends string> {
  readonly running: Map<string, Job<D, R, N>>;
  readonly contexts: Map<string, JobContext>;
  /** Stalls this worker took back, by Echo id (a claim carries no stall count). */
  readonly stalls: Map<string, number>;
  readonly delays: AttemptDelays;
  readonly inFlight: InFlight;
  emit(event: string, ...args: unknown[]): boolean;
  emitError(error: unknown): void;
}

/** BullMQ's failure of a job that stalled more often than `maxStalledCount` allows. */
function stalledTooOften(): Error {
  return new Error(STALLED_REASON);
}

/**
 * Turns the Echo worker's settlement events into BullMQ's: `completed` and `failed` with the
 * running `Job` (its counts brought up to date), `drained`, and `stalled` with BullMQ's job id.
 */
export function wireWorkerEvents<D, R, N extends string>(book: WorkerBook<D, R, N>, queue: EchoQueue<Envelope>, worker: EchoWorker<Envelope>): void {
  worker.on('completed', ({ job: claimed, result }) => {
    const job = book.running.get(claimed.id);
    book.contexts.delete(claimed.id);
    book.inFlight.done(claimed.id);
    if (!job) return;
    book.running.delete(claimed.id);
    job.returnvalue = result as R;
    job.attemptsMade = attemptsMadeOf(openEnvelope(claimed.payload), claimed.attempts);
    job.finishedOn = Date.now();
    book.emit('completed', job, result, 'active');
  });
  worker.on('failed', ({ job: claimed, error, outcome }) => {
    const job = book.running.get(claimed.id);
    book.running.delete(claimed.id);
    book.contexts.delete(claimed.id);
    book.inFlight.done(claimed.id);
    if (error instanceof JobStalledError && job === undefined) {
      book.delays.takeGiven(claimed.id);
      failedByStalls(book, queue, claimed).catch((failure: unknown) => book.emitError(failure));
      return;
    }
    // BullMQ's text for a job that stalled more often than maxStalledCount allows.
    const err = error instanceof JobStalledError ? stalledTooOften() : error instanceof Error ? error : new Error(String(error));
    if (job) {
      job.failedReason = err.message;
      job.stacktrace = withStack(job.stacktrace, err.stack, job.opts.stackTraceLimit);
      job.attemptsMade = attemptsMadeOf(openEnvelope(claimed.payload), claimed.attempts);
      // BullMQ's job.delay of a job waiting out its backoff is that backoff.
      const delay = book.delays.takeGiven(claimed.id);
      if (outcome === 'scheduled' && delay !== undefined) job.delay = delay;
      if (outcome !== 'scheduled') job.finishedOn = Date.now();
    } else {
      book.delays.takeGiven(claimed.id);
    }
    book.emit('failed', job, err, 'active');
  });
  worker.on('drained', () => book.emit('drained'));
  worker.on('stalled', ({ id }) => {
    if (book.stalls.size >= 10_000) book.stalls.clear();
    const stalls = (book.stalls.get(id) ?? 0) + 1;
    book.stalls.set(id, stalls);
    // The sweep's reply can come after the job's next claim (an idle worker claims on its wake
    // read, as soon as the sweep's wake lands): a job already running here learns its count now.
    const running = book.running.get(id);
    if (running) running.stalledCounter = stalls;
    // BullMQ names the job by its own id, not Echo's: known when it runs here or was added or
    // run by this process with a custom id; else read from the job's envelope.
    const known = running?.id ?? rememberedJobId(id);
    if (known !== undefined) book.emit('stalled', known, 'active');
    else void stalledJobId(queue, id).then((jobId) => book.emit('stalled', jobId, 'active'));
  });
}

/**
 * A job that stalled past its limit was not running here: it is shown as read before the sweep,
 * with the stalls its row counted (every worker's; a row already removed by `removeOnFail`
 * leaves the claim count, one stall per claim).
 */
async function failedByStalls<D, R, N extends string>(book: WorkerBook<D, R, N>, queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>): Promise<void> {
  const row = await queue.getJob(claimed.id);
  const job = Job.fromStalled<D, R, N>(queue, claimed, row?.stalled ?? Math.max(claimed.attempts, book.stalls.get(claimed.id) ?? 1));
  const err = stalledTooOften();
  job.failedReason = err.message;
  job.stacktrace = withStack(job.stacktrace, err.stack, job.opts.stackTraceLimit);
  job.finishedOn = Date.now();
  book.emit('failed', job, err, 'active');
}

/** The application's id of a job Echo calls `echoId` (Echo's id when its row is gone). */
async function stalledJobId(queue: EchoQueue<Envelope>, echoId: string): Promise<string> {
  const record = await queue.getJob(echoId).catch(() => undefined);
  return record === undefined ? echoId : openEnvelope(record.payload).i ?? echoId;
}
