/** Test-only access to package internals that are not part of the public surface. */
export * from '../src/extend.js';
/** The package's `.lua` sources, which the tests compare with what the build compiled in. */
export const LUA_DIR_FOR_TESTS = new URL('../lua/', import.meta.url);
export { KEY_ARGS } from '../src/scripts/key-law.js';
