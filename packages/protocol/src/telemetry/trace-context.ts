/**
 * A W3C Trace Context (https://www.w3.org/TR/trace-context/) as a job row carries it [TS]: the
 * producer's `traceparent` and, when it has one, its `tracestate`. The protocol stores and answers
 * the text; it never reads a trace id out of it, and it depends on no tracing library.
 */
export interface TraceContext {
  /** `version-traceid-parentid-flags`, e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`. */
  readonly traceparent: string;
  /** Vendor entries, e.g. `rojo=00f067aa0ba902b7,congo=t61rcWkgMzE`; omitted when empty. */
  readonly tracestate?: string;
}

/**
 * A context under construction: an instrumentation writes the producer's fields into it from a
 * start hook, and the admission reads them back (see `TraceHooks`). Anything else left on it is ignored.
 */
export interface TraceCarrier {
  /** The producer span's `traceparent`. */
  traceparent?: string;
  /** Its `tracestate`, when it has vendor entries. */
  tracestate?: string;
}

/** The longest `tracestate` kept: the W3C limit a propagator must be able to pass on. */
export const MAX_TRACESTATE = 512;

const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;
const TRACESTATE = /^[\x20-\x7e]*$/;

/** True when `value` is a `traceparent` as W3C writes it (lower-case hex, four dash-separated fields). */
export function isTraceparent(value: unknown): value is string {
  return typeof value === 'string' && TRACEPARENT.test(value) && !value.startsWith('ff');
}

/** True when `value` is a `tracestate` the row may carry: printable ASCII, at most {@link MAX_TRACESTATE} characters. */
export function isTracestate(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TRACESTATE && TRACESTATE.test(value);
}

/**
 * The context a carrier holds, or `undefined` when it holds no valid `traceparent`. A malformed
 * `tracestate` is dropped, not the whole context: an instrumentation's slip never fails an admission.
 */
export function traceContextOf(carrier: TraceCarrier | undefined): TraceContext | undefined {
  if (carrier === undefined || !isTraceparent(carrier.traceparent)) return undefined;
  const state = carrier.tracestate;
  return isTracestate(state) && state !== '' ? { traceparent: carrier.traceparent, tracestate: state } : { traceparent: carrier.traceparent };
}
