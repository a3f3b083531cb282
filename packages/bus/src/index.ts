/**
 * `@echo/bus`: the event-bus pillar of EchoMQ. Two halves share each queue's `{q}` slot (a bus
 * opened without a queue has streams only, each under its own name as the hashtag):
 *
 * - the events channel `emq:{q}:events`, a broadcast of lifecycle events, at most once;
 * - the stream logs `emq:{q}:stream:<name>`, durable and replayable records under EVT ids, with
 *   consumer groups (at least once), retention and time-window reads.
 *
 * Start with {@link Bus}; the functional verbs below it take a `Connection` for code that already
 * holds one.
 *
 * @packageDocumentation
 */
export { Bus, StreamBus, type BusOptions, type BusRetentionTarget } from './bus.js';
export { Stream, type ReadRange, type StreamAppendOptions, type StreamBatchOptions, type StreamOptions, type WindowOptions } from './stream.js';
export { TRACEPARENT_FIELD, TRACESTATE_FIELD, type TraceContextOption } from './trace-fields.js';

export {
  EventsListener,
  eventNameOf,
  listen,
  type EventListener,
  type EventSubscriber,
  type EventsListenerStats,
  type LifecycleEventMap,
  type LifecycleEventOf,
  type ListenOptions,
} from './events-listener.js';
export { publish } from './publish.js';

export { append, appendBatch, appendId, type AppendIdOptions, type AppendOptions, type EvtMinter } from './append.js';
export {
  DEFAULT_DEDUP_WINDOW_MS,
  MAX_MSG_ID,
  appendBatchUnique,
  appendUnique,
  type AppendReceipt,
  type DedupAppendOptions,
  type DedupBatchOptions,
  type DedupWindowOptions,
} from './dedup-append.js';
export { read, readSince, readWindow, type ReadBound } from './read.js';
export { trim, type TrimWindow } from './trim.js';
export { RetentionDriver, type RetentionOptions, type RetentionOutcome, type RetentionTarget, type RetentionWindow } from './retention.js';
export { clearArchived, getArchived, putArchived } from './archive.js';
export { dropStream } from './drop.js';
export { openGroup, type GroupStart, type OpenGroupResult } from './group.js';
export { deleteGroup, isGroupPaused, pauseGroup, resetGroup, resumeGroup } from './group-controls.js';
export { GroupConsumer, consume, consumeBatch } from './group-consumer.js';
export type { ConsumeOptions, GroupBatchHandler, GroupConsumerStats, GroupEntry, GroupHandler, Verdict } from './consume-options.js';
export { deadLetters, redrive, type DeadLetter, type DeadLetterRange, type RedriveResult, type RedriveTarget } from './dead-letters.js';
export { lag, type ConsumerLag, type GroupLag } from './lag.js';
export { StreamTail, type TailOptions, type TailStart } from './tail.js';

export type { StreamEntry, StreamFields } from './fields.js';
export { maxidCeil, minidFloor, type Instant } from './instant.js';
export { xaddId } from './xadd-id.js';
export { BatchAppendError, type BatchAppendResult } from './errors.js';
// Raised by the connector's subscribe; re-exported under its old home.
export { Resp3RequiredError } from '@echo/protocol/bus';
