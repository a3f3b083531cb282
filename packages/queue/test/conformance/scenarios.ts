/**
 * The conformance scenarios this package owns, in the order of conformance.md. The other families
 * (lanes and flows 44–61, grouped batches 68–70, streams 74–79) live with their own packages.
 */
import type { Scenario } from './harness.js';
import { batches } from './scenarios-batch.js';
import { operatorPlane, readPlane } from './scenarios-planes.js';
import { stateMachine } from './scenarios-state.js';
import { parityCloser, watchPlane } from './scenarios-watch.js';

export type { Scenario, ScenarioEnv } from './harness.js';

export const scenarios: readonly Scenario[] = [...stateMachine, ...readPlane, ...operatorPlane, ...watchPlane, ...parityCloser, ...batches];
