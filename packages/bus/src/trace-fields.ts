import { InvalidArgumentError, isTracestate, traceContextOf, type TraceContext } from '@echo/protocol/bus';
import { entryFromPairs, type StreamEntry, type StreamFields } from './fields.js';

/**
 * The reserved [TS] field that carries the producer's W3C `traceparent` in a record of a stream
 * opened with `traceContext: true`. bus.md §2.1 reads every field but `id` as payload, so readers
 * in other runtimes see it as a payload field: the option is off unless asked for.
 */
export const TRACEPARENT_FIELD = '_tp';

/** The reserved [TS] field that carries the producer's `tracestate`, when it has vendor entries. */
export const TRACESTATE_FIELD = '_ts';

/** Whether a stream's records carry trace context. */
export interface TraceContextOption {
  /**
   * True: appends write the producer's W3C trace context (when a tracing subscriber such as
   * `@echo/otel` supplied one) as the reserved [TS] fields `_tp`/`_ts` after the caller's fields,
   * callers may not use those names, and reads, tails and consumers strip them from the payload.
   * Default false: records are exactly the caller's fields. Every writer and reader of a stream
   * should agree on it.
   */
  readonly traceContext?: boolean;
}

const NONE: readonly string[] = [];

/**
 * Refuses a record that uses a reserved trace field name, before any I/O.
 *
 * @throws InvalidArgumentError when `fields` has `_tp` or `_ts`.
 */
export function refuseTraceFields(fields: StreamFields, argument = 'fields'): void {
  for (const name of [TRACEPARENT_FIELD, TRACESTATE_FIELD]) {
    if (Object.hasOwn(fields, name)) throw new InvalidArgumentError(argument, `the field name ${JSON.stringify(name)} is reserved for trace context on this stream`);
  }
}

/** The `field value …` pairs a record carries for `trace`: none without one. */
export function traceFieldPairs(trace: TraceContext | undefined): readonly string[] {
  if (trace === undefined) return NONE;
  return trace.tracestate === undefined ? [TRACEPARENT_FIELD, trace.traceparent] : [TRACEPARENT_FIELD, trace.traceparent, TRACESTATE_FIELD, trace.tracestate];
}

/** A record read from a stream that carries trace context: the entry without the trace fields, and the context. */
export interface TracedEntry {
  readonly entry: StreamEntry;
  readonly trace: TraceContext | undefined;
}

/**
 * Like `entryFromPairs`, for a stream that carries trace context: `_tp`/`_ts` are taken out of the
 * payload, and answered as the context when `_tp` is a W3C `traceparent` (anything else reads as no
 * context; a malformed `_ts` is dropped).
 *
 * @throws MalformedIdError when the entry has no `id` field or it holds no EVT id.
 */
export function tracedEntryFromPairs(xid: string, pairs: readonly unknown[]): TracedEntry {
  let traceparent: string | undefined;
  let tracestate: string | undefined;
  const rest: unknown[] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const name = String(pairs[i]);
    if (name === TRACEPARENT_FIELD) traceparent ??= String(pairs[i + 1]);
    else if (name === TRACESTATE_FIELD) tracestate ??= String(pairs[i + 1]);
    else rest.push(pairs[i], pairs[i + 1]);
  }
  const entry = entryFromPairs(xid, rest);
  if (traceparent === undefined) return { entry, trace: undefined };
  return { entry, trace: traceContextOf(isTracestate(tracestate) ? { traceparent, tracestate } : { traceparent }) };
}

/** Reads a record, stripping the trace fields when the stream carries them. */
export function readEntry(xid: string, pairs: readonly unknown[], carried: boolean): StreamEntry {
  return carried ? tracedEntryFromPairs(xid, pairs).entry : entryFromPairs(xid, pairs);
}
