/**
 * `@echo/protocol/extend`: everything below the language line of EchoMQ, for library authors who
 * build a new reading of the substrate. The keyspace and its names, the branded ids, the Lua
 * transitions and their loader (scripts, headers, key shapes, `bind`), the fenced EVALSHA connector,
 * the typed reads and writes, the record formats and the closed registry of error classes. The
 * pillars import their own subpath (`@echo/protocol/queue`, `/bus`, `/cache`), which holds their
 * contract and none of the script machinery.
 *
 * @packageDocumentation
 */
export * from './ids/index.js';
export * from './keys/index.js';

// The app face (connection, ids, event names, ACL rules, every error class), then the rest.
export * from './index.js';
export type { NameKind } from './errors/validation.js';
export { ERROR_CLASSES, mapReplyError, type EmqErrorFactory } from './errors/registry.js';
export {
  DEFAULT_MAX_VALUE_BYTES,
  UnknownOptionError,
  ValueTooLargeError,
  checkValueSize,
  resolveValueLimit,
  strictOptions,
  type OptionCheck,
  type OptionShape,
} from './options/strict.js';
export { MAX_SPAN_MS, MAX_TIMER_MS, OptionRangeError, checkTimeBound, type TimeBound } from './options/bounds.js';
export { checkConnectionChoice, isConnectionLike } from './options/connection.js';

export { parseHeader, type HeaderSlot, type HeaderTail, type ScriptHeader } from './scripts/header.js';
export { defineScript, loadScript, sha1, type DefineScriptOptions, type Script } from './scripts/script.js';
export { strictVariant } from './scripts/strict.js';
export { SCRIPT_NAMES, scripts, type ScriptName } from './scripts/catalog.js';
export { checkKeyLaw, type KeyLawViolation } from './scripts/key-law.js';

export { Connection, type BatchResult, type ScriptCall } from './connector/connection.js';
export type { ConnectionState } from './connector/gate.js';

export * as transitions from './transitions/index.js';
export { bind, type BindInput } from './transitions/bind.js';
export { compileKeyShape, type KeyResolver, type KeyScope } from './transitions/key-shapes.js';
export { execute, executeAll, transition, type Settled, type Transition } from './transitions/transition.js';
export { checkPriority, flowLink, MAX_JOB_NAME, MAX_PRIORITY, readJobOptions, type FlowLink, type JobOptionFields } from './transitions/values.js';
export type { ClaimedRow, HeldJob } from './transitions/index.js';
export type { MasterNode } from './connector/masters.js';
export type { PubSubMessage, Payload, SubscribeOptions, Subscription, SubscriptionEvents } from './connector/subscription.js';
export { INVALIDATE_CHANNEL, openTracking, type Tracking, type TrackingEvents, type TrackingOptions } from './connector/tracking.js';
export { checkCall, type Arg } from './connector/call-shape.js';
export { type ConnectOptions, type EvictionPolicyMode, type NodeAddress, type SentinelConfig, reconnectDelay } from './connector/options.js';
export type { ConnectionStats } from './connector/stats.js';
export { FENCE_KEY, WIRE_VERSION, claimOrVerify, judgeVersion, type FenceIo } from './connector/fence.js';

export { EVENT_NAMES, encodeEvent, parseEvent, type EventName, type LifecycleEvent, type LifecycleEventFields, type NoExtraFields } from './events.js';
export {
  EventsListener,
  eventNameOf,
  type EventListener,
  type EventSubscriber,
  type EventsListenerParts,
  type EventsListenerStats,
  type LifecycleEventMap,
  type LifecycleEventOf,
  type ListenOptions,
  type RawLifecycleMessage,
} from './events-listener.js';
export { TypedEmitter, type Listener, type ListenerErrorHandler } from './typed-emitter.js';
export {
  JOB_FIELDS,
  ROW_STATES,
  hashReply,
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
export { busAclRules, cacheAclRules, queueAclRules } from './acl.js';
export * from './telemetry/index.js';
export * as reads from './reads/index.js';
export * as writes from './writes/index.js';
export { MalformedReplyError } from './errors/wire.js';
export { STREAM_HEAD, compareStreamIds, isStreamId } from './reads/stream-ids.js';
export {
  entryFields,
  parseAutoclaim,
  parseOneStreamRead,
  parseStreamEntries,
  parseStreamRead,
  type AutoclaimReply,
  type StreamEntryReply,
  type StreamReadReply,
} from './reads/stream-entries.js';
export { StreamCursor, type CursorStart, type StreamBatch, type StreamCursorEvents, type StreamCursorOptions, type StreamGap } from './reads/stream-cursor.js';
export { parseCoherenceEntry, type CoherenceEntry, type CoherenceOp } from './formats/coherence-entry.js';
export { parseOutboxEntry, type OutboxEntry } from './formats/outbox-entry.js';
export { ENTRY_FRAME_HEADER, encodeEntryFrame, parseEntryFrame, type EntryFrame } from './formats/entry-frame.js';
export { parseWakeToken, type WakeToken } from './formats/wake-token.js';
export { parseDeadLetterRecord, type DeadLetterRecord } from './formats/dead-letter-record.js';
export { parseOutcomesEntry, type OutcomesEntry, type OutcomeRecord } from './formats/outcomes-entry.js';
export { jsonCodec, type JsonCodec } from './formats/json-codec.js';
export { deferred, type Deferred } from './connector/deferred.js';
export { backoffDelay, checkCurve, checkCurveKeys, exponential, fixed, jitter, maxBackoffDelay, type Backoff } from './options/backoff.js';
