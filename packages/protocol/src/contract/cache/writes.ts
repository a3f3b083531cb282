/**
 * The cache's typed writes, as `@echo/protocol/cache` exposes them (`writes`): declared tables' rows,
 * the broadcast lane's publish, and the senders. The ACL generator (scripts/gen-acl.ts) follows what
 * this module reaches. The write factory is not here: a pillar sends the builders it is given, never
 * a command by name.
 */
export { sendWrite, sendWrites, type Write } from '../../writes/write.js';
export { cacheCoherencePublish, cacheRowDelete, cacheRowSet } from '../../writes/cache/index.js';
