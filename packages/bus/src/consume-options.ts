import { checkTimeBound, InvalidArgumentError, type EvtId } from '@echo/protocol/bus';
import { ID_FIELD, type StreamFields } from './fields.js';
import type { GroupStart } from './group.js';
import { checkConsumeOptions } from './option-checks.js';
import type { TraceContextOption } from './trace-fields.js';

/** What a group handler receives: the same shape as the job consumer's handler (bus.md §7.2). */
export interface GroupEntry {
  /** The record's EVT id, the dedup key: delivery is at least once and may be out of order. */
  readonly id: EvtId;
  /** The record's fields, without `id`. */
  readonly payload: StreamFields;
  /** How many times the entry has been delivered, this delivery included; not a failure count. */
  readonly attempts: number;
  /** The group the entry was delivered to. */
  readonly group: string;
  /**
   * Says the handler is still working on the entry (JetStream's in-progress ack): resets its idle
   * time on the server without counting a delivery, so no consumer's idle claim (`minIdleMs`)
   * takes it over meanwhile. Call it more often than `minIdleMs` in a long handler. Answers false
   * when this consumer no longer holds the entry (a peer claimed it, or it was settled).
   */
  inProgress(): Promise<boolean>;
}

/**
 * What a handler says about one entry.
 *
 * - `'ack'` (or returning nothing): done, acked.
 * - `'retry'` (or throwing): left pending, delivered again once idle for `minIdleMs`.
 * - `{ retryInMs }`: delivered again no sooner than that many ms (at most `minIdleMs`: the server
 *   cannot date a delivery in the future, so a longer wait needs a longer `minIdleMs`).
 * - `{ deadLetter: reason }`: moved to the dead-letter stream at once, with the reason.
 *
 * A retry on the entry's last allowed delivery (`maxDeliveries`) dead-letters it instead.
 */
export type Verdict = 'ack' | 'retry' | { readonly retryInMs: number } | { readonly deadLetter: string };

/**
 * Handles one entry. Returning nothing (or `'ack'`) acks it; throwing retries it (see
 * {@link Verdict}). Must be idempotent (bus.md §7.3).
 */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- returning nothing acks, so a plain procedure is a handler
export type GroupHandler = (entry: GroupEntry) => void | Verdict | Promise<void | Verdict>;

/**
 * Handles the entries of one read together: returns nothing to ack them all, or one verdict per
 * entry, in order. Throwing retries them all.
 */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- returning nothing acks them all
export type GroupBatchHandler = (entries: readonly GroupEntry[]) => void | readonly Verdict[] | Promise<void | readonly Verdict[]>;

/**
 * How a {@link GroupConsumer} runs. `traceContext` reads the trace fields of a stream that carries
 * them: stripped from the payload, and handed to the `emq.stream.process` tracing channel.
 */
export interface ConsumeOptions extends TraceContextOption {
  /** Where the group starts if it does not exist yet; required, there is no default (bus.md §7.1). */
  readonly start: GroupStart;
  /**
   * This consumer's name within the group. Keep it stable across restarts: a consumer that comes
   * back under the same name gets its own backlog at once, instead of after `minIdleMs`.
   */
  readonly consumer: string;
  /** How long an entry must sit unacked before any consumer may claim it. Default 30000 ms. */
  readonly minIdleMs?: number;
  /** How long one blocking read waits for new entries; also the claim period. Default 1000 ms. */
  readonly beatMs?: number;
  /** Entries per read or claim. Default 100. */
  readonly count?: number;
  /** Handler calls in flight at once, for a per-entry handler. Default 1. */
  readonly concurrency?: number;
  /**
   * Deliveries an entry may have. Past it (a retry on the last one, or a claim beyond it after
   * crashes) the entry is moved to the stream's dead-letter stream with its reason and attempts,
   * and acked. Default: no limit.
   */
  readonly maxDeliveries?: number;
  /**
   * Per-key order (Kafka's per-key order without partitions): entries whose field `orderBy` holds
   * the same value are handled one after another, in stream order, across every consumer of the
   * group that uses the same `orderBy`; entries with different values run concurrently (up to
   * `concurrency`). An entry waits while an earlier one of its value is pending anywhere in the
   * group, including one that failed and waits for its redelivery, or one held by a consumer that
   * died (it is claimed after `minIdleMs`, then handled first). Entries without the field are not
   * ordered. Default: no order.
   */
  readonly orderBy?: string;
  /**
   * Redelivery delays after a failure (JetStream's `BackOff`), in ms: the n-th redelivery of an
   * entry waits `backoff[n - 1]`, the last delay repeating. Each must be at most `minIdleMs` (the
   * server cannot date a delivery in the future). A verdict `{ retryInMs }` wins over it. Give the
   * group's consumers the same list. Default: a failed entry comes back after `minIdleMs`.
   */
  readonly backoff?: readonly number[];
  /** `CLIENT SETNAME` for the dedicated connection, so it can be found in `CLIENT LIST`. */
  readonly connectionName?: string;
  /**
   * Called with every error the loop survives: a handler's throw (with its entry), an entry that
   * carries no EVT id, a lost connection. The loop keeps going. Default: ignore.
   */
  readonly onError?: (error: unknown, entry?: GroupEntry) => void;
}

/** Counters since start. */
export interface GroupConsumerStats {
  /** Entries handed to a handler. */
  readonly delivered: number;
  /** Entries acked after their handler said so. */
  readonly acked: number;
  /** Retries (throws and retry verdicts), plus entries that could not be read as records. */
  readonly failed: number;
  /** Entries taken over by a claim (from peers, or this consumer's own idle failures). */
  readonly claimed: number;
  /** This consumer's own pending entries found at start, or again after a lost connection. */
  readonly recovered: number;
  /** Entries this consumer moved to the dead-letter stream. */
  readonly deadLettered: number;
}

/** The checked, defaulted options. */
export interface ConsumerSettings {
  readonly consumer: string;
  readonly minIdleMs: number;
  readonly beatMs: number;
  readonly count: number;
  readonly concurrency: number;
  /** 0: no limit. */
  readonly maxDeliveries: number;
  readonly traceContext: boolean;
  /** The order field, or undefined for no order. */
  readonly orderBy: string | undefined;
  /** Redelivery delays by delivery; empty: none. */
  readonly backoff: readonly number[];
  readonly onError: (error: unknown, entry?: GroupEntry) => void;
}

function whole(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

function orderByOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value === ID_FIELD) {
    throw new InvalidArgumentError('orderBy', `must be the name of a record field other than "id", got ${JSON.stringify(value)}`);
  }
  return value;
}

function backoffOf(value: unknown, minIdleMs: number): readonly number[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length === 0) throw new InvalidArgumentError('backoff', 'must be a non-empty list of delays in ms');
  return (value as unknown[]).map((delay, i) => {
    if (typeof delay !== 'number' || !Number.isSafeInteger(delay) || delay < 0) throw new InvalidArgumentError(`backoff[${i}]`, `must be an integer >= 0, got ${String(delay)}`);
    checkTimeBound('consume options', `backoff[${i}]`, delay, 'span');
    if (delay > minIdleMs) {
      throw new InvalidArgumentError(`backoff[${i}]`, `${delay} ms is over minIdleMs (${minIdleMs}): a redelivery cannot be dated later than that; raise minIdleMs`);
    }
    return delay;
  });
}

/**
 * Checks and defaults the options, before anything is sent.
 *
 * @throws InvalidArgumentError for a bad value; UnknownOptionError for an unknown option.
 */
export function settingsOf(options: ConsumeOptions): ConsumerSettings {
  checkConsumeOptions(options);
  const minIdleMs = whole('minIdleMs', options.minIdleMs ?? 30_000, 0);
  return {
    consumer: options.consumer,
    minIdleMs,
    beatMs: whole('beatMs', options.beatMs ?? 1000, 1),
    count: whole('count', options.count ?? 100, 1),
    concurrency: whole('concurrency', options.concurrency ?? 1, 1),
    maxDeliveries: options.maxDeliveries === undefined ? 0 : whole('maxDeliveries', options.maxDeliveries, 1),
    traceContext: options.traceContext === true,
    orderBy: orderByOf(options.orderBy),
    backoff: backoffOf(options.backoff, minIdleMs),
    onError: options.onError ?? (() => undefined),
  };
}
