import type { Tracer } from '@opentelemetry/api';
import { jobTraceHooks } from './job-traces.js';
import { streamTraceHooks } from './stream-traces.js';

/** How many produced contexts and open consumer spans are kept. */
export interface TraceLimits {
  /** Producer contexts kept for linking (batch admissions and stream records), by id. Default 10,000. */
  readonly produced?: number;
  /** Consumer spans open at once (handlers running). Default 10,000. */
  readonly open?: number;
}

/**
 * Subscribes to the tracing channels and makes spans: the job spans of {@link jobTraceHooks}
 * (producer context carried in the job row, handlers run inside their consumer span), and the
 * stream spans of {@link streamTraceHooks}: a producer span per append call, a consumer span per
 * handler call, current while the handler runs. Answers the function that unsubscribes and ends
 * the spans still open.
 *
 * A stream opened with `traceContext: true` carries the producer's context in each record, so a
 * record appended by another process is consumed as the child of its producer span; on other
 * streams the consumer span is linked to producer spans of this process only.
 */
export function traceHooks(tracer: Tracer, limits: TraceLimits = {}): () => void {
  const offs = [jobTraceHooks(tracer, limits), streamTraceHooks(tracer, limits.produced ?? 10_000)];
  return () => {
    for (const off of offs) off();
  };
}
