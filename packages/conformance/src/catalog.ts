/**
 * Every conformance scenario in run order: the 79 of conformance.md by number, then the TS-only
 * extensions. New scenarios are appended, never inserted; the names and the total are pinned by
 * the package's own tests against the vendored scenario list (`spec/scenarios.json`).
 */
import { batchSettlement } from './scenarios/batch-settlement.js';
import { batches } from './scenarios/batches.js';
import { flowTrees } from './scenarios/flow-trees.js';
import { flows } from './scenarios/flows.js';
import { groupedBatches } from './scenarios/grouped-batches.js';
import { lanes, weightedLanes } from './scenarios/lanes.js';
import { nativeExpiry } from './scenarios/native-expiry.js';
import { operatorPlane, readPlane } from './scenarios/planes.js';
import { pool } from './scenarios/pool.js';
import { resubscribeDrill } from './scenarios/resubscribe.js';
import { stateLanes } from './scenarios/state-lanes.js';
import { stateMachine } from './scenarios/state-machine.js';
import { stateTimers } from './scenarios/state-timers.js';
import { streams } from './scenarios/streams.js';
import { tsEvents } from './scenarios/ts-events.js';
import { tsOnly } from './scenarios/ts-only.js';
import { tsQueueFeatures } from './scenarios/ts-queue-features.js';
import { tsRetention } from './scenarios/ts-retention.js';
import { tsStreamState } from './scenarios/ts-stream-state.js';
import { parityCloser, watchPlane } from './scenarios/watch.js';
import type { Scenario } from './scenario.js';

/** How many scenarios conformance.md defines (the TS-only extensions come on top). */
export const SPEC_SCENARIO_COUNT = 79;

/** Every scenario, in run order. */
export const CONFORMANCE_SCENARIOS: readonly Scenario[] = Object.freeze([
  ...stateMachine,
  ...stateLanes,
  ...stateTimers,
  ...resubscribeDrill,
  ...readPlane,
  ...operatorPlane,
  ...watchPlane,
  ...parityCloser,
  ...lanes,
  ...flows,
  ...flowTrees,
  ...pool,
  ...nativeExpiry,
  ...weightedLanes,
  ...batches,
  ...groupedBatches,
  ...batchSettlement,
  ...streams,
  ...tsOnly,
  ...tsEvents,
  ...tsRetention,
  ...tsStreamState,
  ...tsQueueFeatures,
]);
