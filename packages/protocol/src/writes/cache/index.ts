export { cacheCoherencePublish } from './coherence.js';
export { cacheEntryLease, type EntryLeaseReply } from './entries.js';
export { cacheRowDelete, cacheRowSet } from './rows.js';
