export { cacheFramesGet, cacheRowGet } from './frames.js';
export { cacheEntryScan, cacheTagMembers, type EntryScanStep } from './walks.js';
export { CACHE_READ_COMMANDS } from './commands.js';
