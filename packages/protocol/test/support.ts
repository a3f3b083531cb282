/** Test-only access to package internals that are not part of the public surface. */
export * from '../src/index.js';
export { LUA_DIR as LUA_DIR_FOR_TESTS } from '../src/scripts/script.js';
export { KEY_ARGS } from '../src/scripts/key-law.js';
