export { cacheFramesGet, cacheRowGet } from './frames.js';
export { cacheEntryScan, cacheTagMembers, type EntryScanStep } from './walks.js';
