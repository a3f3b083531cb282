/**
 * Every conformance scenario in run order: the 79 of conformance.md by number, then the TS-only
 * extensions. New scenarios are appended, never inserted; the names and the total are pinned by
 * the testkit's own tests.
 */
import { batches } from './batches.js';
import { batchesMore } from './batches-more.js';
import { flows } from './flows.js';
import { flowsDeep } from './flows-deep.js';
import { lanes, weightedLanes } from './lanes.js';
import { operatorPlane, readPlane } from './planes.js';
import { nativeExpiry, pool } from './pool-native.js';
import type { Scenario } from './scenario.js';
import { stateMachine } from './state.js';
import { stateMachineMore } from './state-more.js';
import { streams } from './streams.js';
import { tsOnly } from './ts-only.js';
import { parityCloser, watchPlane } from './watch.js';

/** How many scenarios conformance.md defines (the TS-only extensions come on top). */
export const SPEC_SCENARIO_COUNT = 79;

export const CONFORMANCE_SCENARIOS: readonly Scenario[] = Object.freeze([
  ...stateMachine,
  ...stateMachineMore,
  ...readPlane,
  ...operatorPlane,
  ...watchPlane,
  ...parityCloser,
  ...lanes,
  ...flows,
  ...flowsDeep,
  ...pool,
  ...nativeExpiry,
  ...weightedLanes,
  ...batches,
  ...batchesMore,
  ...streams,
  ...tsOnly,
]);
