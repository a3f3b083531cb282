/**
 * `@echo/bus`: the event-bus pillar of EchoMQ. Two halves share each queue's `{q}` slot (a bus
 * opened without a queue has streams only, each under its own name as the hashtag):
 *
 * - the events channel `emq:{q}:events`, a broadcast of lifecycle events, at most once;
 * - the stream logs `emq:{q}:stream:<name>`, durable and replayable records under EVT ids, with
 *   consumer groups (at least once), retention and time-window reads.
 *
 * Start with {@link Bus}: `bus.stream(name)` is a {@link Stream}, whose methods are every verb of
 * a stream log; `bus.events()` listens to the lifecycle events.
 *
 * @packageDocumentation
 */
export { Bus, StreamBus, type BusOptions, type BusRetentionTarget } from './bus.js';
export { Stream } from './stream.js';
export type { ReadRange, StreamAppendOptions, StreamBatchOptions, StreamOptions, WindowOptions } from './stream-options.js';
export type { EvtMinter } from './core/context.js';
export { TRACEPARENT_FIELD, TRACESTATE_FIELD, type TraceContextOption } from './record/trace-fields.js';

export {
  EventsListener,
  type EventListener,
  type EventSubscriber,
  type EventsListenerStats,
  type LifecycleEventMap,
  type LifecycleEventOf,
  type ListenOptions,
} from './events/listener.js';

export { DEFAULT_DEDUP_WINDOW_MS, MAX_MSG_ID, type AppendReceipt } from './append/unique.js';
export type { ReadBound } from './read/range.js';
export type { TrimWindow } from './retention/trim.js';
export { RetentionDriver, type RetentionOptions, type RetentionOutcome, type RetentionTarget, type RetentionWindow } from './retention/retention.js';
export type { GroupStart, OpenGroupResult } from './groups/open.js';
export { GroupConsumer } from './consumer/consumer.js';
export type { ConsumeOptions, GroupBatchHandler, GroupConsumerStats, GroupEntry, GroupHandler, Verdict } from './consumer/options.js';
// The redelivery curve is the queue's: build one with fixed, exponential and jitter from @echo/protocol.
export type { Backoff } from '@echo/protocol/bus';
export type { DeadLetter, DeadLetterRange, RedriveResult, RedriveTarget } from './dead-letters/dead-letters.js';
export type { ConsumerLag, GroupLag } from './groups/lag.js';
export { StreamTail, type TailOptions, type TailStart } from './read/tail.js';

export type { StreamEntry, StreamFields } from './record/fields.js';
// The raw-id helpers (xaddId, minidFloor, maxidCeil, eventNameOf) are under `@echo/bus/wire`: the root holds classes.
export type { Instant } from './record/instant.js';
export { BatchAppendError, type BatchAppendResult } from './core/errors.js';
// Raised by the connector's subscribe; re-exported under its old home.
export { Resp3RequiredError } from '@echo/protocol/bus';
