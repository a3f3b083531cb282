/**
 * `@echo/testkit/conformance`: Echo's conformance scenarios (conformance.md) as a suite any
 * implementation can run. It imports no Echo package: a caller hands {@link runConformance} a
 * {@link ConformanceTarget} built from its own queue, worker, bus and connection, and gets one
 * verdict per scenario back.
 *
 * @example
 * const run = await runConformance(target, { onResult: (r) => console.log(formatResult(r)) });
 * console.log(formatSummary(run));
 *
 * @packageDocumentation
 */
export type * from './types.js';
export type * from './types-bus.js';
export { hasCapability, type Capability, type Family, type Scenario, type ScenarioEnv } from './scenario.js';
export { CONFORMANCE_SCENARIOS, SPEC_SCENARIO_COUNT } from './catalog.js';
export { MissingCapabilityError } from './env.js';
export { mastersOf, serverHarness } from './server-harness.js';
export {
  failureDetail,
  formatCounts,
  formatReport,
  formatResult,
  formatSummary,
  runConformance,
  type ConformanceRun,
  type RunOptions,
  type ScenarioResult,
} from './runner.js';
export { FENCE_KEY, WIRE_VERSION } from './state.js';
export { NEEDS_FIELD_TTL } from './pool-native.js';
export { IN_PROTOCOL_TESTS } from './ts-only.js';
