import { resolveValueLimit, type Connection, type EvtId } from '@echo/protocol/bus';
import { append, appendBatch, appendId, type AppendOptions, type EvtMinter } from './append.js';
import { clearArchived, getArchived, putArchived } from './archive.js';
import { dropStream } from './drop.js';
import { deleteGroup, isGroupPaused, pauseGroup, resetGroup, resumeGroup } from './group-controls.js';
import type { StreamEntry, StreamFields } from './fields.js';
import type { ConsumeOptions, GroupBatchHandler, GroupHandler } from './consume-options.js';
import { deadLetters, redrive, type DeadLetter, type DeadLetterRange, type RedriveResult, type RedriveTarget } from './dead-letters.js';
import { consume, consumeBatch, type GroupConsumer } from './group-consumer.js';
import { lag, type GroupLag } from './lag.js';
import { StreamTail, type TailOptions } from './tail.js';
import { openGroup, type GroupStart, type OpenGroupResult } from './group.js';
import type { Instant } from './instant.js';
import { deadLettersKey, streamKey } from './keys.js';
import { checkReadRange, checkStreamAppendOptions, checkStreamBatchOptions, checkStreamOptions, checkWindowOptions } from './option-checks.js';
import { appendBatchUnique, appendUnique, dedupWindowOf, type AppendReceipt } from './dedup-append.js';
import { read, readSince, readWindow, type ReadBound } from './read.js';
import { trim, type TrimWindow } from './trim.js';
import type { TraceContextOption } from './trace-fields.js';

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

/** A rejected promise when `check` throws, so a verb that answers a promise never throws instead. */
function refusedOr(check: () => void): Promise<never> | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * One stream log, `emq:{q}:stream:<name>` (bus.md §2): the verbs of the pillar bound to a connection,
 * a hashtag and a name. Cheap to create; holds no resources of its own.
 */
export class Stream {
  /**
   * The hashtag `q` of its keys: the queue whose slot the stream shares, or, for a stream of a bus
   * opened without a queue, the stream's own name.
   */
  readonly queue: string;
  /** The stream name. */
  readonly name: string;
  /** `emq:{q}:stream:<name>`. */
  readonly key: string;
  /** `emq:{q}:stream:<name>:dead`, where its groups' dead letters go [TS]. */
  readonly deadLettersKey: string;
  /** True when records carry trace context (`_tp`/`_ts`) [TS]. */
  readonly traceContext: boolean;
  /** The byte cap on one entry (field names and values, UTF-8). */
  readonly maxEntryBytes: number;
  /** How long a publish message id is remembered, in ms. */
  readonly dedupWindowMs: number;
  readonly #conn: Connection;
  readonly #append: AppendOptions;
  readonly #trace: TraceContextOption;
  readonly #appendId: TraceContextOption & { readonly maxEntryBytes: number };

  /**
   * @param minter mints the ids of {@link append} and {@link appendBatch}; default the process-wide minter.
   * @param options whether records carry trace context, and the byte cap on one entry.
   * @throws InvalidNameError for a bad queue or stream name; UnknownOptionError for an unknown option.
   */
  constructor(conn: Connection, queue: string, name: string, minter?: EvtMinter, options: StreamOptions = {}) {
    checkStreamOptions(options);
    this.maxEntryBytes = resolveValueLimit('maxEntryBytes', options.maxEntryBytes);
    this.dedupWindowMs = dedupWindowOf(options.dedupWindowMs);
    this.key = streamKey(queue, name);
    this.deadLettersKey = deadLettersKey(queue, name);
    this.#conn = conn;
    this.queue = queue;
    this.name = name;
    this.traceContext = options.traceContext === true;
    this.#trace = this.traceContext ? { traceContext: true } : {};
    this.#appendId = { ...this.#trace, maxEntryBytes: this.maxEntryBytes };
    this.#append = minter === undefined ? this.#appendId : { minter, ...this.#appendId };
  }

  /** Appends a record under a freshly minted EVT id and answers the id. See {@link append}. */
  append(fields?: StreamFields): Promise<EvtId>;
  /**
   * Appends a record unless its message id was appended within the stream's dedup window, and
   * answers `{ id, duplicate }`: the new id, or the first append's. See {@link appendUnique}.
   */
  append(fields: StreamFields, options: StreamAppendOptions): Promise<AppendReceipt>;
  append(fields: StreamFields = {}, options?: StreamAppendOptions): Promise<EvtId | AppendReceipt> {
    if (options === undefined) return append(this.#conn, this.queue, this.name, fields, this.#append);
    return refusedOr(() => checkStreamAppendOptions(options)) ?? appendUnique(this.#conn, this.queue, this.name, fields, { ...this.#append, dedupWindowMs: this.dedupWindowMs, msgId: options.msgId });
  }

  /** Appends a record under an EVT id the caller supplies. See {@link appendId}. */
  appendId(id: string, fields: StreamFields = {}): Promise<EvtId> {
    return appendId(this.#conn, this.queue, this.name, id, fields, this.#appendId);
  }

  /** Appends many records in one pipeline and answers their ids in order. See {@link appendBatch}. */
  appendBatch(records: readonly StreamFields[]): Promise<EvtId[]>;
  /**
   * Appends many records in one script, one message id each: those seen within the dedup window
   * write nothing. Answers one receipt per record. See {@link appendBatchUnique}.
   */
  appendBatch(records: readonly StreamFields[], options: StreamBatchOptions): Promise<AppendReceipt[]>;
  appendBatch(records: readonly StreamFields[], options?: StreamBatchOptions): Promise<EvtId[] | AppendReceipt[]> {
    if (options === undefined) return appendBatch(this.#conn, this.queue, this.name, records, this.#append);
    return refusedOr(() => checkStreamBatchOptions(options)) ?? appendBatchUnique(this.#conn, this.queue, this.name, records, { ...this.#append, dedupWindowMs: this.dedupWindowMs, msgIds: options.msgIds });
  }

  /** Reads records in mint order, bounds inclusive. See {@link read}. */
  async read(range: ReadRange = {}): Promise<StreamEntry[]> {
    checkReadRange(range);
    return await read(this.#conn, this.queue, this.name, range.from, range.to, range.count, this.#trace);
  }

  /** Reads the records minted in `[t0, t1]`, inclusive to the millisecond. See {@link readWindow}. */
  async readWindow(t0: Instant, t1: Instant, options: WindowOptions = {}): Promise<StreamEntry[]> {
    checkWindowOptions(options);
    return await readWindow(this.#conn, this.queue, this.name, t0, t1, options.count, this.#trace);
  }

  /** Reads the records minted at or after `t0`. See {@link readSince}. */
  async readSince(t0: Instant, options: WindowOptions = {}): Promise<StreamEntry[]> {
    checkWindowOptions(options);
    return await readSince(this.#conn, this.queue, this.name, t0, options.count, this.#trace);
  }

  /** Trims with `XTRIM` and answers the number removed. See {@link trim}. */
  trim(window: TrimWindow): Promise<number> {
    return trim(this.#conn, this.queue, this.name, window);
  }

  /** Stores the archive watermark. See {@link putArchived}. */
  putArchived(watermark: string): Promise<void> {
    return putArchived(this.#conn, this.queue, this.name, watermark);
  }

  /** Reads the archive watermark, `undefined` when none is set. See {@link getArchived}. */
  getArchived(): Promise<EvtId | undefined> {
    return getArchived(this.#conn, this.queue, this.name);
  }

  /** Deletes the archive watermark. See {@link clearArchived}. */
  clearArchived(): Promise<boolean> {
    return clearArchived(this.#conn, this.queue, this.name);
  }

  /** Deletes the whole stream with its groups and watermark, atomically. See {@link dropStream}. */
  drop(): Promise<boolean> {
    return dropStream(this.#conn, this.queue, this.name);
  }

  /** Opens a consumer group; an existing one is accepted. See {@link openGroup}. */
  openGroup(group: string, start: GroupStart): Promise<OpenGroupResult> {
    return openGroup(this.#conn, this.queue, this.name, group, start);
  }

  /** Pauses a group: its consumers everywhere stop reading and claiming. See {@link pauseGroup}. */
  pauseGroup(group: string): Promise<void> {
    return pauseGroup(this.#conn, this.queue, this.name, group);
  }

  /** Resumes a paused group; false when it was not paused. See {@link resumeGroup}. */
  resumeGroup(group: string): Promise<boolean> {
    return resumeGroup(this.#conn, this.queue, this.name, group);
  }

  /** True when the group is paused. See {@link isGroupPaused}. */
  isGroupPaused(group: string): Promise<boolean> {
    return isGroupPaused(this.#conn, this.queue, this.name, group);
  }

  /** Moves a group's position to a start, an instant or an entry. See {@link resetGroup}. */
  resetGroup(group: string, to: GroupStart): Promise<void> {
    return resetGroup(this.#conn, this.queue, this.name, group, to);
  }

  /** Deletes a group with its pending list and its state; false when there was none. See {@link deleteGroup}. */
  deleteGroup(group: string): Promise<boolean> {
    return deleteGroup(this.#conn, this.queue, this.name, group);
  }

  /** Starts a group consumer on a dedicated connection. See {@link GroupConsumer}. */
  consume(group: string, handler: GroupHandler, options: ConsumeOptions): Promise<GroupConsumer> {
    return consume(this.#conn, this.queue, this.name, group, handler, { ...this.#trace, ...options });
  }

  /** Starts a group consumer with a batch handler. See {@link GroupConsumer.startBatch}. */
  consumeBatch(group: string, handler: GroupBatchHandler, options: ConsumeOptions): Promise<GroupConsumer> {
    return consumeBatch(this.#conn, this.queue, this.name, group, handler, { ...this.#trace, ...options });
  }

  /** Reads this stream's dead letters, oldest first. See {@link deadLetters}. */
  deadLetters(range: DeadLetterRange = {}): Promise<DeadLetter[]> {
    return deadLetters(this.#conn, this.queue, this.name, range, this.#trace);
  }

  /** Puts dead letters back in front of their group. See {@link redrive}. */
  redrive(target: RedriveTarget): Promise<RedriveResult> {
    return redrive(this.#conn, this.queue, this.name, target);
  }

  /** The lag of every group of this stream, or of one. See {@link lag}. */
  lag(group?: string): Promise<GroupLag[]> {
    return lag(this.#conn, this.queue, this.name, group);
  }

  /** A plain tail of this stream, without a group, as an async iterator. See {@link StreamTail}. */
  tail(options: TailOptions = {}): StreamTail {
    return new StreamTail(this.#conn, this.queue, this.name, { ...this.#trace, ...options });
  }
}
