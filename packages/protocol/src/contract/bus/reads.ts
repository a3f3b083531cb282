/**
 * The bus's typed reads, as `@echo/protocol/bus` exposes them (`reads`): stream ranges and reads,
 * consumer-group reads, the bus's records (`reads.bus.*`) and the senders. What this module reaches
 * is what the bus may send outside its scripts: the ACL generator (scripts/gen-acl.ts) follows it. The
 * read factory is not here: a pillar sends the builders it is given, never a command by name.
 */
export { sendRead, sendReads, type Read, type ReadSettled, type ReadsSettled, type ReadTarget } from '../../reads/read.js';
export { isNoSuchKey, parseStreamInfo, xinfoStream, xread, xrevrange, xtop, type RangeInput, type StreamInfo, type StreamReadInput } from '../../reads/streams.js';
export { xrange } from '../../reads/stream-range.js';
export { xinfoConsumers, xinfoGroups, xpendingSummary, xreadgroup, type ConsumerInfo, type GroupInfo, type GroupReadInput, type PendingSummary } from '../../reads/stream-groups.js';
export * as bus from '../../reads/bus/index.js';
