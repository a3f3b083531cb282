export { cacheCoherencePublish } from './coherence.js';
export { cacheRowDelete, cacheRowSet } from './rows.js';
