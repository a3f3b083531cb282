import { traces, type ProcessedJob, type ProcessTraceContext } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';

const processTrace = traces.process;

/** True while someone subscribes to the `emq.job.process` tracing channel. */
export function processTraced(): boolean {
  return processTrace.hasSubscribers;
}

function processed(job: ClaimedJob<unknown>): ProcessedJob {
  return { jobId: job.id, attempt: job.attempts, group: job.group, trace: job.trace };
}

/**
 * Runs one handler call (one job, or a whole batch) inside the `emq.job.process` tracing channel:
 * stores bound with `start.bindStore` hold for the handler's own code, and the handler runs inside
 * the `enter` a `start` subscriber set (OpenTelemetry makes the consumer span current there, so the
 * spans the handler starts are its children). Callers check {@link processTraced} first, so a
 * worker nobody traces calls its handler as it is.
 */
export function tracedRun<R>(queue: string, jobs: readonly ClaimedJob<unknown>[], batch: boolean, run: () => R | PromiseLike<R>): Promise<R> {
  const context: ProcessTraceContext = { queue, batch, jobs: jobs.map(processed) };
  // The executor runs `run` at once, inside whatever `enter` opened; a synchronous throw rejects.
  const call = (): Promise<R> => new Promise<R>((resolve) => resolve(run()));
  return processTrace.tracePromise(() => (context.enter ? context.enter(call) : call()), context);
}
