/**
 * Telemetry hooks: `emq.job.*`, `emq.stream.*` and `emq.cache.*` events on `node:diagnostics_channel`,
 * with typed payloads. Free when nobody listens; exporters (OpenTelemetry, Prometheus) subscribe.
 */
export * from './events.js';
export { TELEMETRY_HOOK_NAMES, emitHook, hooks, onHook, type Hook, type HookListener, type TelemetryHookMap, type TelemetryHookName } from './hooks.js';
export {
  EXPOSITION_CONTENT_TYPE,
  formatExposition,
  type HistogramValue,
  type Labels,
  type MetricFamily,
  type MetricType,
  type Sample,
} from './exposition.js';
export { DEFAULT_SECONDS_BUCKETS, HookMetrics, type HookMetricsOptions } from './hook-metrics.js';
export { MAX_TRACESTATE, isTraceparent, isTracestate, traceContextOf, type TraceCarrier, type TraceContext } from './trace-context.js';
export { traces, type Enter, type EnqueueTraceContext, type ProcessTraceContext, type ProcessedJob } from './tracing.js';
