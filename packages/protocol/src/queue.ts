/**
 * `@echo/protocol/queue`: the queue's contract on the shared substrate. Its keys, its typed
 * transitions (admission, claims, settlement, recovery, operator verbs, lanes, workers, gates,
 * schedulers, flows), the job record and attempt history parsers, the wake token and the outcomes
 * and dead-letter formats. The queue and the readings built on it (`@echo/bullmq`) import this
 * subpath only.
 *
 * @packageDocumentation
 */
export * from './substrate.js';
export { queueKeys, type QueueKeys } from './keys/queue-keys.js';
export * as transitions from './transitions/queue.js';
export * as reads from './contract/queue/reads.js';
export { checkPriority, flowLink, MAX_JOB_NAME, MAX_PRIORITY, readJobOptions, type FlowLink, type JobOptionFields } from './transitions/values.js';
export type { ClaimedRow, HeldJob } from './transitions/index.js';
export {
  JOB_FIELDS,
  ROW_STATES,
  parseJobRow,
  parseMeta,
  parseRepeatRecord,
  type JobField,
  type JobRow,
  type ParentPolicy,
  type QueueMeta,
  type RepeatRecord,
  type RowState,
} from './records.js';
export { parseAttempts, type AttemptOutcome, type AttemptRecord } from './attempts.js';
export { parseWakeToken, type WakeToken } from './formats/wake-token.js';
export { parseOutboxEntry, type OutboxEntry } from './formats/outbox-entry.js';
export { parseOutcomesEntry, type OutcomesEntry, type OutcomeRecord } from './formats/outcomes-entry.js';
export { parseDeadLetterRecord, type DeadLetterRecord } from './formats/dead-letter-record.js';
