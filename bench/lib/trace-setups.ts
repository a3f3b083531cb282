/**
 * The three set-ups the trace-context benches measure in turn (trace-context.ts for the queue,
 * bus-trace-context.ts for streams):
 *
 * - `off`: nobody instruments.
 * - `channels`: bare listeners on a producer and a consumer tracing channel; the producer one writes a
 *   fixed `traceparent` into the carrier (the hook mechanism and the carried fields, no tracing library).
 * - `otel`: `instrumentEcho` with a `BasicTracerProvider` whose processor drops ended spans, and the
 *   `AsyncLocalStorageContextManager`: the cost measured is making spans, not shipping them.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { instrumentEcho } from '@echo/otel';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

export type Setup = 'off' | 'channels' | 'otel';
export const SETUPS: readonly Setup[] = ['off', 'channels', 'otel'];

/** The `start` event names of the producer and consumer tracing channels a bench instruments. */
export interface TraceChannels {
  readonly produce: string | symbol;
  readonly process: string | symbol;
}

const FIXED_TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const dropping: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
const provider = new BasicTracerProvider({ spanProcessors: [dropping] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/** Turns `setup` on; answers what turns it off again. */
export function instrument(setup: Setup, channels: TraceChannels): () => void {
  if (setup === 'otel') {
    const otel = instrumentEcho({ tracerProvider: provider, meterProvider: false });
    return () => otel.close();
  }
  if (setup === 'off') return () => undefined;
  const fill = (message: unknown): void => {
    (message as { carrier: { traceparent?: string } }).carrier.traceparent = FIXED_TRACEPARENT;
  };
  const noop = (): void => undefined;
  subscribe(channels.produce, fill);
  subscribe(channels.process, noop);
  return () => {
    unsubscribe(channels.produce, fill);
    unsubscribe(channels.process, noop);
  };
}

/** Releases the context manager and the provider at the end of a bench. */
export async function closeTracing(): Promise<void> {
  context.disable();
  await provider.shutdown();
}
