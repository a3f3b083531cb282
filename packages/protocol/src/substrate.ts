/**
 * What every pillar reads the substrate through, whatever it holds: the app face (connection, ids,
 * errors), `execute` for its typed transitions, the strict-options
 * validator and its bounds, the id codec and minter, the name checks, the telemetry hooks, the
 * lifecycle-events listener and the stream cursor. Each pillar subpath (`./queue.ts`, `./bus.ts`,
 * `./cache.ts`) re-exports this beside its own contract, its typed reads and writes among it (each
 * pillar's own, so its ACL rules follow them); it is not an entry point of its own.
 */
export * from './index.js';
export * from './ids/index.js';
export * from './keys/names.js';
export * from './telemetry/index.js';

export {
  DEFAULT_MAX_VALUE_BYTES,
  checkValueSize,
  resolveValueLimit,
  strictOptions,
  type OptionCheck,
  type OptionShape,
} from './options/strict.js';
export { MAX_SPAN_MS, MAX_TIMER_MS, checkTimeBound, type TimeBound } from './options/bounds.js';
export { checkConnectionChoice, isConnectionLike } from './options/connection.js';
export { execute, executeAll, type Settled, type Transition } from './transitions/transition.js';
export { deferred, type Deferred } from './connector/deferred.js';
export { TypedEmitter, type Listener, type ListenerErrorHandler } from './typed-emitter.js';
export { encodeEvent, parseEvent, type LifecycleEventFields, type NoExtraFields } from './events.js';
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
export { STREAM_HEAD, compareStreamIds, isStreamId } from './reads/stream-ids.js';
export { entryFields, parseStreamEntries, type StreamEntryReply } from './reads/stream-entries.js';
export { StreamCursor, type CursorStart, type StreamBatch, type StreamCursorEvents, type StreamCursorOptions, type StreamGap } from './reads/stream-cursor.js';
export type { PubSubMessage, Payload, SubscribeOptions, Subscription, SubscriptionEvents } from './connector/subscription.js';
export { jsonCodec, type JsonCodec } from './formats/json-codec.js';
export { backoffDelay, checkCurve, checkCurveKeys, exponential, fixed, jitter, maxBackoffDelay, type Backoff } from './options/backoff.js';
