import { traceContextOf, traces, type AppendTraceContext, type ProcessedEntry, type StreamProcessTraceContext } from '@echo/protocol/bus';
import type { ConsumerLabels } from './hooks.js';
import { traceFieldPairs } from '../record/trace-fields.js';

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
