/**
 * The cache's typed reads, as `@echo/protocol/cache` exposes them (`reads`): L2 frames, the tag and
 * entry walks, and the senders. The ACL generator (scripts/gen-acl.ts) follows what this module
 * reaches. The read factory is not here: a pillar sends the builders it is given, never a command by name.
 */
export { sendRead, sendReads, type Read, type ReadSettled, type ReadsSettled, type ReadTarget } from '../../reads/read.js';
export { cacheEntryScan, cacheFramesGet, cacheRowGet, cacheTagMembers, type EntryScanStep } from '../../reads/cache/index.js';
