/**
 * `@echo/queue/internal`: the pure batch helpers behind `BatchWorker`, exposed so the
 * conformance suite can judge them against the protocol's vectors directly. They are not part of
 * the supported API: names and shapes may change in any release. Apps use `BatchWorker`.
 *
 * @packageDocumentation
 */
export { decideBatch, type ShapeDecision } from './worker/shaping.js';
export { partitionBatch, type BatchPartition, type BatchVerdict, type SettleOutcome } from './worker/partition.js';
