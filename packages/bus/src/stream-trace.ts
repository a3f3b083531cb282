import { traceContextOf, traces, type AppendTraceContext, type ProcessedEntry, type StreamProcessTraceContext, type TraceContext } from '@echo/protocol/bus';
import type { GroupEntry } from './consume-options.js';
import type { CallWrap } from './handler-runs.js';
import type { ConsumerLabels } from './stream-hooks.js';
import { traceFieldPairs } from './trace-fields.js';

/**
 * The bus's side of the `emq.stream.append` and `emq.stream.process` tracing channels. Callers
 * check `hasSubscribers` first (through {@link appendTraced} and {@link processTraced}), so an app
 * nobody traces makes its calls as they are.
 */

const appendTrace = traces.streamAppend;
const processTrace = traces.streamProcess;

/** True while someone subscribes to the `emq.stream.append` tracing channel. */
export function appendTraced(): boolean {
  return appendTrace.hasSubscribers;
}

/** True while someone subscribes to the `emq.stream.process` tracing channel. */
export function processTraced(): boolean {
  return processTrace.hasSubscribers;
}

/**
 * Runs one append call inside the `emq.stream.append` tracing channel. `send` gets the trace field
 * pairs to write after each record's fields: those of the context a `start` subscriber put in the
 * carrier when the stream carries trace context (`carried`), none otherwise.
 */
export function tracedAppend<R>(
  queue: string,
  stream: string,
  count: number,
  carried: boolean,
  idsOf: (result: R) => readonly string[],
  send: (extra: readonly string[]) => Promise<R>,
): Promise<R> {
  const context: AppendTraceContext = { queue, stream, count, carried, carrier: {} };
  return appendTrace.tracePromise(async () => {
    // The start subscribers ran before this body: the carrier holds what they wrote.
    const result = await send(carried ? traceFieldPairs(traceContextOf(context.carrier)) : []);
    context.ids = idsOf(result);
    return result;
  }, context);
}

/**
 * Runs one group handler call inside the `emq.stream.process` tracing channel, inside the `enter`
 * a `start` subscriber set (OpenTelemetry makes the consumer span current there).
 */
export function tracedProcess(who: ConsumerLabels, batch: boolean, entries: readonly ProcessedEntry[], run: () => unknown): Promise<unknown> {
  const context: StreamProcessTraceContext = { queue: who.queue, stream: who.stream, group: who.group, consumer: who.consumer, batch, entries };
  // The executor runs `run` at once, inside whatever `enter` opened; a synchronous throw rejects.
  const call = (): Promise<unknown> => new Promise<unknown>((resolve) => resolve(run()));
  return processTrace.tracePromise(() => (context.enter ? context.enter(call) : call()), context);
}

/** An entry as the process channel describes it. */
function processedEntry(entry: GroupEntry, trace: TraceContext | undefined): ProcessedEntry {
  return trace === undefined ? { id: entry.id, attempts: entry.attempts } : { id: entry.id, attempts: entry.attempts, trace };
}

/**
 * The wrap that runs each handler call of a read inside `emq.stream.process`, describing the
 * entries at its slots with the producers' contexts read from them (`contexts`, by slot).
 */
export function traceWrap(who: ConsumerLabels, entries: readonly (GroupEntry | undefined)[], contexts: readonly (TraceContext | undefined)[]): CallWrap {
  return (slots, batch, run) => tracedProcess(who, batch, slots.map((i) => processedEntry(entries[i] as GroupEntry, contexts[i])), run);
}
