/**
 * `@echo/protocol/bus`: the bus's contract on the shared substrate. The queue keys its streams live
 * under, its typed stream transitions (append with dedup, claim, nack, dead letters, redrive, ordered
 * admission, group forget), the stream-entry and dead-letter parsers. The bus imports this subpath
 * only.
 *
 * @packageDocumentation
 */
export * from './substrate.js';
export { queueKeys, type QueueKeys } from './keys/queue-keys.js';
export * as transitions from './transitions/streams.js';
export * as reads from './contract/bus/reads.js';
export * as writes from './contract/bus/writes.js';
export { parseAutoclaim, parseOneStreamRead, parseStreamRead, type AutoclaimReply, type StreamReadReply } from './reads/stream-entries.js';
export { parseDeadLetterRecord, type DeadLetterRecord } from './formats/dead-letter-record.js';
