import { metrics, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import { meterHooks, type ObservedSources } from './metrics.js';
import { checkInstrumentationOptions, checkInstrumentationValues, checkTraceLimits } from './option-checks.js';
import { traceHooks, type TraceLimits } from './traces.js';

/** The instrumentation scope name of every tracer and meter. */
export const SCOPE = '@echo/otel';

/** How {@link instrumentEcho} reports. */
export interface EchoInstrumentationOptions extends ObservedSources {
  /** Where spans go. Default: the global provider (`trace.getTracerProvider()`). `false`: no traces. */
  readonly tracerProvider?: TracerProvider | false;
  /** Where metrics go. Default: the global provider (`metrics.getMeterProvider()`). `false`: no metrics. */
  readonly meterProvider?: MeterProvider | false;
  /** Bounds on what is kept for linking producer to consumer spans. */
  readonly limits?: TraceLimits;
}

/** A running instrumentation; `stop()` unsubscribes from every hook. */
export interface EchoInstrumentation {
  stop(): void;
}

/**
 * Turns the telemetry hooks (`emq.job.*`, `emq.stream.*`, `emq.cache.*`) into OpenTelemetry spans
 * and metrics. Call once at start-up, after the SDK is set up; nothing in the queue, bus or cache
 * changes, and an app that never calls it never loads `@opentelemetry/api`.
 *
 * @example
 * const otel = instrumentEcho({ queues: [orders] });
 * process.on('SIGTERM', () => otel.stop());
 * @throws UnknownOptionError for an option it does not read, InvalidArgumentError for a value of
 *   the wrong type, before subscribing to anything.
 */
export function instrumentEcho(options: EchoInstrumentationOptions = {}): EchoInstrumentation {
  checkInstrumentationOptions(options);
  checkTraceLimits(options.limits);
  checkInstrumentationValues(options);
  const stops: (() => void)[] = [];
  if (options.tracerProvider !== false) {
    const provider = options.tracerProvider ?? trace.getTracerProvider();
    stops.push(traceHooks(provider.getTracer(SCOPE), options.limits));
  }
  if (options.meterProvider !== false) {
    const provider = options.meterProvider ?? metrics.getMeterProvider();
    stops.push(meterHooks(provider.getMeter(SCOPE), options));
  }
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      for (const stop of stops) stop();
    },
  };
}
