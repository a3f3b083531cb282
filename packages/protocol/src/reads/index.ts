export * as bus from './bus/index.js';
export { clientList, parseClientList, type ClientInfo, type ClientType } from './clients.js';
export { hlen, pttl, scan, type ScanInput, type ScanStep } from './keyspace.js';
export { read, sendRead, sendReads, type Read, type ReadSettled, type ReadsSettled, type ReadTarget } from './read.js';
export { isNoSuchKey, parseStreamInfo, xinfoStream, xread, xrevrange, xtop, type RangeInput, type StreamInfo, type StreamReadInput } from './streams.js';
export { xrange } from './stream-range.js';
export { xinfoConsumers, xinfoGroups, xpendingSummary, xreadgroup, type ConsumerInfo, type GroupInfo, type GroupReadInput, type PendingSummary } from './stream-groups.js';
export * as queue from './queue/index.js';
export { cacheEntryScan, cacheFramesGet, cacheRowGet, cacheTagMembers, type EntryScanStep } from './cache/index.js';
