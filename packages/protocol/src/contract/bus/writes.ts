/**
 * The bus's typed writes, as `@echo/protocol/bus` exposes them (`writes`): appends and the bus's
 * records (`writes.bus.*`), group controls and settlement, trimming, the events publish and the
 * senders. The ACL generator (scripts/gen-acl.ts) follows what this module reaches. The write factory
 * is not here: a pillar sends the builders it is given, never a command by name.
 */
export { sendWrite, sendWriteBatch, sendWrites, type Write, type WriteBatch } from '../../writes/write.js';
export { publish } from '../../writes/channels.js';
export { parseXaddReply, xack, xadd, xgroupCreate, xgroupDestroy, xgroupSetid, xtrim, type GroupCreateInput, type XaddInput, type XtrimInput } from '../../writes/streams.js';
export * as bus from '../../writes/bus/index.js';
