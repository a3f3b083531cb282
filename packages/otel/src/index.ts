/**
 * `@echo/otel`: OpenTelemetry traces and metrics for EchoMQ, made from the telemetry hooks of
 * `@echo/protocol`. Install it (with `@opentelemetry/api`) only where you export telemetry.
 *
 * @packageDocumentation
 */
export { ATTR, SYSTEM } from './attributes.js';
export { SCOPE, instrumentEcho, type EchoInstrumentation, type EchoInstrumentationOptions } from './instrument.js';
export { meterHooks, type DepthSource, type LagReading, type ObservedSources } from './metrics.js';
export { traceHooks, type TraceLimits } from './traces.js';
