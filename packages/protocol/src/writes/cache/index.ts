export { cacheCoherencePublish } from './coherence.js';
export { cacheEntryLease, type EntryLeaseReply } from './entries.js';
export { cacheRowDelete, cacheRowSet } from './rows.js';
export { CACHE_WRITE_COMMANDS } from './commands.js';
