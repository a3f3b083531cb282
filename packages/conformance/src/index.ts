/**
 * `@echo/conformance`: Echo's EchoMQ conformance suite (conformance.md). Each scenario drives a
 * live server through the real `@echo/queue` and `@echo/bus` over one fenced `@echo/protocol`
 * connection, and reports one verdict; the `echo-conformance` command prints the spec's report.
 *
 * @example
 * const target = await createTarget({ connect: { url: process.env.REDIS_URL, strictKeys: true } });
 * try {
 *   const run = await runConformance(target, { onResult: (r) => console.log(formatResult(r)) });
 *   console.log(formatSummary(run));
 * } finally {
 *   await target.close();
 * }
 *
 * @packageDocumentation
 */
export { createTarget, type ConformanceTarget, type QueuePool, type TargetOptions } from './target.js';
export type { ServerNode } from './server-nodes.js';
export { notBuilt, type Family, type Scenario, type ScenarioEnv } from './scenario.js';
export { CONFORMANCE_SCENARIOS, SPEC_SCENARIO_COUNT } from './catalog.js';
export { failureDetail, runConformance, type ConformanceRun, type RunOptions, type ScenarioResult } from './runner.js';
export { formatCounts, formatReport, formatResult, formatSummary } from './report.js';
export { NEEDS_FIELD_TTL } from './scenarios/native-expiry.js';
export { IN_PROTOCOL_TESTS } from './scenarios/ts-only.js';
