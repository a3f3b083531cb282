import { channel, subscribe, unsubscribe } from 'node:diagnostics_channel';
import type {
  CacheEvictEvent,
  CacheFillEvent,
  CacheHitEvent,
  CacheMissEvent,
  CacheStaleEvent,
  JobCompleteEvent,
  JobDeadEvent,
  JobEnqueueEvent,
  JobFailEvent,
  JobRetryEvent,
  JobStalledEvent,
  JobStartEvent,
  StreamAckEvent,
  StreamAppendEvent,
  StreamConsumeEvent,
  StreamDeadLetterEvent,
} from './events.js';

/**
 * Every telemetry hook by its `diagnostics_channel` name, with the payload it carries (each
 * payload type documents when its hook fires).
 */
export interface TelemetryHookMap {
  /** See {@link JobEnqueueEvent}. */
  'emq.job.enqueue': JobEnqueueEvent;
  /** See {@link JobStartEvent}. */
  'emq.job.start': JobStartEvent;
  /** See {@link JobCompleteEvent}. */
  'emq.job.complete': JobCompleteEvent;
  /** See {@link JobFailEvent}. */
  'emq.job.fail': JobFailEvent;
  /** See {@link JobRetryEvent}. */
  'emq.job.retry': JobRetryEvent;
  /** See {@link JobDeadEvent}. */
  'emq.job.dead': JobDeadEvent;
  /** See {@link JobStalledEvent}. */
  'emq.job.stalled': JobStalledEvent;
  /** See {@link StreamAppendEvent}. */
  'emq.stream.append': StreamAppendEvent;
  /** See {@link StreamConsumeEvent}. */
  'emq.stream.consume': StreamConsumeEvent;
  /** See {@link StreamAckEvent}. */
  'emq.stream.ack': StreamAckEvent;
  /** See {@link StreamDeadLetterEvent}. */
  'emq.stream.dead_letter': StreamDeadLetterEvent;
  /** See {@link CacheHitEvent}. */
  'emq.cache.hit': CacheHitEvent;
  /** See {@link CacheMissEvent}. */
  'emq.cache.miss': CacheMissEvent;
  /** See {@link CacheFillEvent}. */
  'emq.cache.fill': CacheFillEvent;
  /** See {@link CacheStaleEvent}. */
  'emq.cache.stale': CacheStaleEvent;
  /** See {@link CacheEvictEvent}. */
  'emq.cache.evict': CacheEvictEvent;
}

/** The name of a telemetry hook, e.g. `emq.job.complete`. */
export type TelemetryHookName = keyof TelemetryHookMap;

/**
 * One hook: a `node:diagnostics_channel` channel typed by its payload. Emitters check
 * `hasSubscribers` before building a payload, so a process where nobody listens pays one property
 * read per emit point and allocates nothing.
 */
export interface Hook<M> {
  /** The channel name, e.g. `emq.job.complete`. */
  readonly name: string | symbol;
  /** True while at least one listener is subscribed. */
  readonly hasSubscribers: boolean;
  /** Delivers `message` to every listener, synchronously. */
  publish(message: M): void;
}

function hook<N extends TelemetryHookName>(name: N): Hook<TelemetryHookMap[N]> {
  // The module holds the channel strongly: diagnostics_channel keeps channels weakly, and a
  // collected channel would forget its subscribers' flag between a subscribe and our check.
  return channel(name);
}

/**
 * The telemetry hooks, grouped by pillar. Subscribe with {@link onHook} or with
 * `diagnostics_channel.subscribe('emq.job.complete', fn)` directly: the names are the contract.
 */
export const hooks = {
  job: {
    enqueue: hook('emq.job.enqueue'),
    start: hook('emq.job.start'),
    complete: hook('emq.job.complete'),
    fail: hook('emq.job.fail'),
    retry: hook('emq.job.retry'),
    dead: hook('emq.job.dead'),
    stalled: hook('emq.job.stalled'),
  },
  stream: {
    append: hook('emq.stream.append'),
    consume: hook('emq.stream.consume'),
    ack: hook('emq.stream.ack'),
    deadLetter: hook('emq.stream.dead_letter'),
  },
  cache: {
    hit: hook('emq.cache.hit'),
    miss: hook('emq.cache.miss'),
    fill: hook('emq.cache.fill'),
    stale: hook('emq.cache.stale'),
    evict: hook('emq.cache.evict'),
  },
} as const;

/** Every hook name, in a stable order (for exporters that subscribe to all of them). */
export const TELEMETRY_HOOK_NAMES: readonly TelemetryHookName[] = [
  'emq.job.enqueue',
  'emq.job.start',
  'emq.job.complete',
  'emq.job.fail',
  'emq.job.retry',
  'emq.job.dead',
  'emq.job.stalled',
  'emq.stream.append',
  'emq.stream.consume',
  'emq.stream.ack',
  'emq.stream.dead_letter',
  'emq.cache.hit',
  'emq.cache.miss',
  'emq.cache.fill',
  'emq.cache.stale',
  'emq.cache.evict',
];

/** A listener of one hook. */
export type HookListener<N extends TelemetryHookName> = (event: TelemetryHookMap[N]) => void;

/**
 * Subscribes `listener` to the hook `name`; answers the function that unsubscribes it. A listener
 * runs synchronously inside the emitting call, so it should be quick and must not throw (an
 * exception is rethrown by Node on the next tick, as for any diagnostics channel).
 *
 * @example
 * const off = onHook('emq.job.complete', (e) => histogram.record(e.durationMs, { queue: e.queue }));
 */
export function onHook<N extends TelemetryHookName>(name: N, listener: HookListener<N>): () => void {
  const fn = (message: unknown): void => {
    listener(message as TelemetryHookMap[N]);
  };
  subscribe(name, fn);
  return () => {
    unsubscribe(name, fn);
  };
}

/**
 * Publishes the payload `build` makes, building it only when someone listens. Hot paths inline
 * the same check (`if (h.hasSubscribers) h.publish({...})`) to spare the closure.
 */
export function emitHook<M>(h: Hook<M>, build: () => M): void {
  if (h.hasSubscribers) h.publish(build());
}
