import { InvalidArgumentError, strictOptions } from '@echo/protocol/extend';

/** The strict check of `instrumentEcho` options; the hints name what the OpenTelemetry instrumentations call these. */
export const checkInstrumentationOptions = strictOptions('instrumentEcho options', {
  known: ['tracerProvider', 'meterProvider', 'limits', 'queues', 'lag'],
  hints: {
    enabled: 'instrumentEcho is on once called; close() turns it off (tracerProvider: false or meterProvider: false drops one side)',
    traces: 'tracerProvider: false turns traces off',
    metrics: 'meterProvider: false turns metrics off',
    tracer: 'give tracerProvider (a TracerProvider), not a tracer',
    meter: 'give meterProvider (a MeterProvider), not a meter',
    requireParentSpan: 'consumer spans are children of the producer context carried in the job or record; there is no parent requirement',
  },
});

/** The strict check of `instrumentEcho({ limits })`. */
export const checkTraceLimits = strictOptions('instrumentEcho options.limits', { known: ['produced', 'open'] });

function hasMethod(value: unknown, method: string): boolean {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[method] === 'function';
}

function positiveWhole(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/**
 * The value types of `instrumentEcho`'s options, checked before it subscribes to anything: a wrong
 * provider would otherwise fail half-way, after the traces side had already subscribed.
 * @throws InvalidArgumentError naming the option.
 */
export function checkInstrumentationValues(options: object): void {
  const o = options as Readonly<Record<string, unknown>>;
  const where = 'instrumentEcho options';
  if (o.tracerProvider !== undefined && o.tracerProvider !== false && !hasMethod(o.tracerProvider, 'getTracer')) {
    throw new InvalidArgumentError(`${where}.tracerProvider`, 'must be a TracerProvider (with getTracer), or false for no traces');
  }
  if (o.meterProvider !== undefined && o.meterProvider !== false && !hasMethod(o.meterProvider, 'getMeter')) {
    throw new InvalidArgumentError(`${where}.meterProvider`, 'must be a MeterProvider (with getMeter), or false for no metrics');
  }
  if (o.queues !== undefined) {
    if (!Array.isArray(o.queues)) throw new InvalidArgumentError(`${where}.queues`, 'must be a list of queues (each with name and counts())');
    (o.queues as unknown[]).forEach((queue, i) => {
      if (!hasMethod(queue, 'counts') || typeof (queue as { name?: unknown }).name !== 'string') {
        throw new InvalidArgumentError(`${where}.queues[${String(i)}]`, 'must be a queue (with name and counts())');
      }
    });
  }
  if (o.lag !== undefined && typeof o.lag !== 'function') throw new InvalidArgumentError(`${where}.lag`, 'must be a function () => Promise<LagReading[]>');
  const limits = o.limits;
  if (limits === undefined) return;
  for (const key of ['produced', 'open'] as const) {
    const value = (limits as Readonly<Record<string, unknown>>)[key];
    if (value !== undefined && !positiveWhole(value)) throw new InvalidArgumentError(`${where}.limits.${key}`, 'must be an integer >= 1');
  }
}
