import type { ReadBound } from './read/range.js';
import type { TraceContextOption } from './record/trace-fields.js';


/**
 * How a {@link Stream} writes and reads its records. `traceContext: true` carries the producer's
 * W3C trace context in each record (the reserved [TS] fields `_tp`/`_ts`, written when a tracing
 * subscriber such as `@echo/otel` supplies a context) and strips it on every read; see
 * {@link TraceContextOption}. Open the stream with the same option wherever it is written or read.
 */
export interface StreamOptions extends TraceContextOption {
  /**
   * The byte cap on one entry: its field names and values, UTF-8. An append over it throws
   * `ValueTooLargeError` and writes nothing (a batch: none of its records). Default: the bus's
   * `maxEntryBytes`, else 1 MiB; `Infinity` for none.
   */
  readonly maxEntryBytes?: number;
  /**
   * How long a publish message id (`append(fields, { msgId })`) is remembered after its first
   * append: a second append with it within the window is a duplicate and writes nothing. Default
   * 120000 ms (two minutes, as JetStream). Give every writer of the stream the same window.
   */
  readonly dedupWindowMs?: number;
}

/** Options of {@link Stream.append} beyond the stream's own. */
export interface StreamAppendOptions {
  /**
   * The publish message id (JetStream's `Nats-Msg-Id`): a second append with it within the
   * stream's `dedupWindowMs` writes nothing and answers the first append's id.
   */
  readonly msgId: string;
}

/** Options of {@link Stream.appendBatch} beyond the stream's own. */
export interface StreamBatchOptions {
  /** One publish message id per record, in order; see {@link StreamAppendOptions.msgId}. */
  readonly msgIds: readonly string[];
}

/** The range of a {@link Stream.read}; every field is optional. */
export interface ReadRange {
  /** Inclusive start: `-` (default) or an EVT id. */
  readonly from?: ReadBound;
  /** Inclusive end: `+` (default) or an EVT id. */
  readonly to?: ReadBound;
  /** At most this many entries. */
  readonly count?: number;
}

/** A limit on a time-window read. */
export interface WindowOptions {
  /** At most this many entries. */
  readonly count?: number;
}
