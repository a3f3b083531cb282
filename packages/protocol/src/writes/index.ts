export { sendWrite, sendWrites, write, type Write } from './write.js';
export { CACHE_WRITE_COMMANDS, cacheCoherencePublish, cacheRowDelete, cacheRowSet } from './cache/index.js';
