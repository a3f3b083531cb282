export { cacheCoherencePublish, cacheRowDelete, cacheRowSet } from './cache/index.js';
export * as bus from './bus/index.js';
export { publish } from './channels.js';
export { parseXaddReply, xack, xadd, xgroupCreate, xgroupDestroy, xgroupSetid, xtrim, type GroupCreateInput, type XaddInput, type XtrimInput } from './streams.js';
export { sendWrite, sendWriteBatch, sendWrites, write, type Write, type WriteBatch } from './write.js';
