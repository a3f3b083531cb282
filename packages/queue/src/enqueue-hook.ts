import { hooks, traceContextOf, traces, type EnqueueTraceContext, type TraceContext } from '@echo/protocol/queue';

const enqueueHook = hooks.job.enqueue;
const enqueueTrace = traces.enqueue;

/** A verdict that names the job it admitted (or found duplicate). */
interface Admitted {
  readonly status: string;
  readonly id: string;
}

/**
 * Runs an admission inside the `emq.job.enqueue` tracing channel and emits the `emq.job.enqueue`
 * hook when it lands. `admit` gets the producer's trace context a tracing subscriber wrote into the
 * carrier, for the row. With nobody listening it is a plain call of `admit(undefined)`: no clock
 * read, no payload, no trace field. A refused admission emits no hook.
 */
export function heardAdmission<R extends Admitted | readonly Admitted[]>(
  queue: string,
  delayed: boolean,
  count: number,
  admit: (trace: TraceContext | undefined) => Promise<R>,
): Promise<R> {
  if (enqueueTrace.hasSubscribers) return traced(queue, delayed, count, admit);
  if (enqueueHook.hasSubscribers) return measured(queue, delayed, admit, undefined);
  return admit(undefined);
}

function traced<R extends Admitted | readonly Admitted[]>(queue: string, delayed: boolean, count: number, admit: (trace: TraceContext | undefined) => Promise<R>): Promise<R> {
  const context: EnqueueTraceContext = { queue, count, delayed, carrier: {} };
  return enqueueTrace.tracePromise(async () => {
    // The start subscribers ran before this body: the carrier holds what they wrote.
    const trace = traceContextOf(context.carrier);
    const result = enqueueHook.hasSubscribers ? await measured(queue, delayed, admit, trace) : await admit(trace);
    context.jobIds = landed(result);
    return result;
  }, context);
}

async function measured<R extends Admitted | readonly Admitted[]>(queue: string, delayed: boolean, admit: (trace: TraceContext | undefined) => Promise<R>, trace: TraceContext | undefined): Promise<R> {
  const started = performance.now();
  const result = await admit(trace);
  const jobIds = landed(result);
  if (jobIds.length > 0) enqueueHook.publish({ queue, jobIds, count: jobIds.length, durationMs: performance.now() - started, delayed });
  return result;
}

function landed(result: Admitted | readonly Admitted[]): string[] {
  const all: readonly Admitted[] = isMany(result) ? result : [result];
  return all.filter((r) => r.status !== 'failed').map((r) => r.id);
}

function isMany(result: Admitted | readonly Admitted[]): result is readonly Admitted[] {
  return Array.isArray(result);
}
