import { strictOptions } from '@echo/protocol';

/** The strict check of `instrumentEcho` options; the hints name what the OpenTelemetry instrumentations call these. */
export const checkInstrumentationOptions = strictOptions('instrumentEcho options', {
  known: ['tracerProvider', 'meterProvider', 'limits', 'queues', 'lag'],
  hints: {
    enabled: 'instrumentEcho is on once called; stop() turns it off (tracerProvider: false or meterProvider: false drops one side)',
    traces: 'tracerProvider: false turns traces off',
    metrics: 'meterProvider: false turns metrics off',
    tracer: 'give tracerProvider (a TracerProvider), not a tracer',
    meter: 'give meterProvider (a MeterProvider), not a meter',
    requireParentSpan: 'consumer spans are children of the producer context carried in the job or record; there is no parent requirement',
  },
});

/** The strict check of `instrumentEcho({ limits })`. */
export const checkTraceLimits = strictOptions('instrumentEcho options.limits', { known: ['produced', 'open'] });
