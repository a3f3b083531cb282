/** The mixed conformance mode (Echo beside the spec-only runtime). Internal: the package's tests drive it. */
export { echoActor, specActor, type Actor, type ActorClaim } from './actors.js';
export { DIRECTIONS, mixedName, runMixed, runMixedOne, type Direction } from './runner.js';
export type { MixedEnv, MixedScenario } from './scenario.js';
export { MIXED_SCENARIOS } from './scenarios.js';
export { assertEchoAgrees, truthOf, type RowTruth } from './truth.js';
