import { createTraceState, isSpanContextValid, type SpanContext } from '@opentelemetry/api';
import type { TraceCarrier, TraceContext } from '@echo/protocol/extend';

/**
 * Writes `span` into `carrier` as W3C Trace Context. The job row's fields are W3C by definition, so
 * this writes them directly instead of through the global propagator (which may be B3, Jaeger or
 * none at all). An invalid context (a non-recording tracer's) writes nothing.
 */
export function injectSpan(span: SpanContext, carrier: TraceCarrier): void {
  if (!isSpanContextValid(span)) return;
  carrier.traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const state = span.traceState?.serialize();
  if (state !== undefined && state !== '') carrier.tracestate = state;
}

/** The remote span context a row's trace fields name, or `undefined` when they name none. */
export function extractSpan(trace: TraceContext | undefined): SpanContext | undefined {
  if (trace === undefined) return undefined;
  const [, traceId, spanId, flags] = trace.traceparent.split('-');
  if (traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  const span: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
    ...(trace.tracestate === undefined ? {} : { traceState: createTraceState(trace.tracestate) }),
  };
  return isSpanContextValid(span) ? span : undefined;
}
