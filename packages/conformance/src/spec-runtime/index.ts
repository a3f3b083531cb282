/** The spec-only runtime, for the mixed conformance mode and the fence tests. Internal: not exported by the package. */
export { SPEC_FENCE_KEY, SPEC_VERSION, SpecFenceError, SpecQueue, SpecRuntime, SpecScriptError, type SpecClaim, type SpecRuntimeOptions } from './runtime.js';
export { decodeId, encodeId, Minter, xaddIdOf } from './ids.js';
