import { RenamedError } from '@echo/protocol/extend';
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

/** A running instrumentation; `close()` unsubscribes from every hook, like every Echo handle closes. */
export interface EchoInstrumentation {
  /** Unsubscribes from every hook; spans already started still end. Idempotent. */
  close(): void;
  /** True once {@link EchoInstrumentation.close} ran. */
  readonly closed: boolean;
  /**
   * The old name, refused: every Echo handle closes with `close()`.
   *
   * @deprecated Call {@link EchoInstrumentation.close}.
   * @throws RenamedError always, naming `close()`; nothing is unsubscribed.
   */
  stop(): never;
}

/**
 * Turns the telemetry hooks (`emq.job.*`, `emq.stream.*`, `emq.cache.*`) into OpenTelemetry spans
 * and metrics. Call once at start-up, after the SDK is set up; nothing in the queue, bus or cache
 * changes, and an app that never calls it never loads `@opentelemetry/api`.
 *
 * @example
 * const otel = instrumentEcho({ queues: [orders] });
 * process.on('SIGTERM', () => otel.close());
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
  let closed = false;
  return {
    close() {
      if (closed) return;
      closed = true;
      for (const stop of stops) stop();
    },
    get closed() {
      return closed;
    },
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the refused old name is defined here
    stop(): never {
      throw new RenamedError('EchoInstrumentation.stop()', 'EchoInstrumentation.close()', 'every handle closes with close()');
    },
  };
}
