import { resolveValueLimit, type Connection, type EvtId } from '@echo/protocol/bus';
import { append, appendId } from './append/append.js';
import { appendBatch } from './append/batch.js';
import { appendBatchUnique, appendUnique, dedupWindowOf, type AppendReceipt } from './append/unique.js';
import { startConsumer, type GroupConsumer } from './consumer/consumer.js';
import type { ConsumeOptions, GroupBatchHandler, GroupHandler } from './consumer/options.js';
import type { EvtMinter, StreamContext } from './core/context.js';
import { deadLetters, redrive, type DeadLetter, type DeadLetterRange, type RedriveResult, type RedriveTarget } from './dead-letters/dead-letters.js';
import { deleteGroup, isGroupPaused, pauseGroup, resetGroup, resumeGroup } from './groups/controls.js';
import { lag, type GroupLag } from './groups/lag.js';
import { openGroup, type GroupStart, type OpenGroupResult } from './groups/open.js';
import { deadLettersKey, streamKey } from './core/keys.js';
import { checkReadRange, checkStreamAppendOptions, checkStreamBatchOptions, checkStreamOptions, checkWindowOptions, refusedOr } from './core/option-checks.js';
import { read, readSince, readWindow } from './read/range.js';
import { StreamTail, type TailOptions } from './read/tail.js';
import type { StreamEntry, StreamFields } from './record/fields.js';
import type { Instant } from './record/instant.js';
import type { TraceContextOption } from './record/trace-fields.js';
import { clearArchived, getArchived, putArchived } from './retention/archive.js';
import { dropStream } from './retention/drop.js';
import { trim, type TrimWindow } from './retention/trim.js';
import type { ReadRange, StreamAppendOptions, StreamBatchOptions, StreamOptions, WindowOptions } from './stream-options.js';

/**
 * One stream log, `emq:{q}:stream:<name>` (bus.md §2): the verbs of the pillar on one stream. Its
 * context (connection, names, keys, options) is built once here and handed to each verb family.
 * Cheap to create; holds no resources of its own.
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
  readonly #ctx: StreamContext;

  /**
   * @param minter mints the ids of {@link append} and {@link appendBatch}; default the process-wide minter.
   * @param options whether records carry trace context, and the byte cap on one entry.
   * @throws InvalidNameError for a bad queue or stream name; UnknownOptionError for an unknown option.
   */
  constructor(conn: Connection, queue: string, name: string, minter?: EvtMinter, options: StreamOptions = {}) {
    checkStreamOptions(options);
    const maxEntryBytes = resolveValueLimit('maxEntryBytes', options.maxEntryBytes);
    const dedupWindowMs = dedupWindowOf(options.dedupWindowMs);
    const key = streamKey(queue, name);
    this.#ctx = { conn, queue, name, key, deadLettersKey: deadLettersKey(queue, name), traceContext: options.traceContext === true, maxEntryBytes, dedupWindowMs, minter };
    this.queue = queue;
    this.name = name;
    this.key = key;
    this.deadLettersKey = this.#ctx.deadLettersKey;
    this.traceContext = this.#ctx.traceContext;
    this.maxEntryBytes = maxEntryBytes;
    this.dedupWindowMs = dedupWindowMs;
  }

  /**
   * Appends a record under a freshly minted EVT id and answers the id (bus.md §2.2). Append never
   * trims; retention is {@link trim}'s job.
   *
   * @throws InvalidArgumentError when `fields` is not flat strings or uses the reserved `id` field
   *   (or, with `traceContext`, `_tp`/`_ts`); ValueTooLargeError over `maxEntryBytes` (nothing is
   *   written); NonMonotonicError when another writer put a higher id on the stream first.
   */
  append(fields?: StreamFields): Promise<EvtId>;
  /**
   * Appends a record unless its message id was appended within the stream's dedup window, and
   * answers `{ id, duplicate }`: the new id, or the first append's (script `stream_append` [TS]).
   */
  append(fields: StreamFields, options: StreamAppendOptions): Promise<AppendReceipt>;
  append(fields: StreamFields = {}, options?: StreamAppendOptions): Promise<EvtId | AppendReceipt> {
    if (options === undefined) return append(this.#ctx, fields);
    return refusedOr(() => checkStreamAppendOptions(options)) ?? appendUnique(this.#ctx, fields, options.msgId);
  }

  /**
   * Appends a record under an EVT id the caller supplies; checked before any I/O.
   * @throws MalformedIdError or KindError for a non-EVT id; NonMonotonicError when the stream holds an id at or above it.
   */
  appendId(id: string, fields: StreamFields = {}): Promise<EvtId> {
    return appendId(this.#ctx, id, fields);
  }

  /**
   * Appends many records in one script per 1,000 (the entries the spec's pipelined XADDs write, at
   * the same ids) and answers their ids in order; all are checked first.
   * @throws BatchAppendError when any XADD was refused; it says which members landed.
   */
  appendBatch(records: readonly StreamFields[]): Promise<EvtId[]>;
  /**
   * Appends many records in one script, one message id each: those seen within the dedup window
   * write nothing. Answers one receipt per record.
   */
  appendBatch(records: readonly StreamFields[], options: StreamBatchOptions): Promise<AppendReceipt[]>;
  appendBatch(records: readonly StreamFields[], options?: StreamBatchOptions): Promise<EvtId[] | AppendReceipt[]> {
    if (options === undefined) return appendBatch(this.#ctx, records);
    return refusedOr(() => checkStreamBatchOptions(options)) ?? appendBatchUnique(this.#ctx, records, options.msgIds);
  }

  /**
   * Reads records in mint order (`XRANGE`), bounds inclusive; `fields` never includes `id` (nor,
   * with `traceContext`, `_tp`/`_ts`).
   *
   * @throws InvalidArgumentError for a bound that is neither `-`, `+` nor an EVT id, or a bad `count`.
   */
  async read(range: ReadRange = {}): Promise<StreamEntry[]> {
    checkReadRange(range);
    return await read(this.#ctx, range.from, range.to, range.count);
  }

  /**
   * Reads the records minted in `[t0, t1]`, inclusive to the millisecond (bus.md §6).
   * @throws InvalidArgumentError when `t1` is before `t0` (nothing is sent), or either is not an instant.
   */
  async readWindow(t0: Instant, t1: Instant, options: WindowOptions = {}): Promise<StreamEntry[]> {
    checkWindowOptions(options);
    return await readWindow(this.#ctx, t0, t1, options.count);
  }

  /** Reads the records minted at or after `t0` (bus.md §6). */
  async readSince(t0: Instant, options: WindowOptions = {}): Promise<StreamEntry[]> {
    checkWindowOptions(options);
    return await readSince(this.#ctx, t0, options.count);
  }

  /**
   * Trims with `XTRIM` (bus.md §5) and answers the number removed (under `approx`, maybe 0).
   * @throws InvalidArgumentError for a malformed window; nothing is sent.
   */
  trim(window: TrimWindow): Promise<number> {
    return trim(this.#ctx.conn, this.#ctx.key, window);
  }

  /**
   * Stores the archive watermark (bus.md §8): an archive driver folds first, then puts, then trims.
   * @throws MalformedIdError or KindError when `watermark` is not an EVT id; nothing is written.
   */
  putArchived(watermark: string): Promise<void> {
    return putArchived(this.#ctx, watermark);
  }

  /** Reads the archive watermark, `undefined` when none is set. */
  getArchived(): Promise<EvtId | undefined> {
    return getArchived(this.#ctx);
  }

  /** Deletes the archive watermark; true when one was there. */
  clearArchived(): Promise<boolean> {
    return clearArchived(this.#ctx);
  }

  /** Deletes the whole stream with its groups and watermark, atomically (script `stream_drop` [TS]). */
  drop(): Promise<boolean> {
    return dropStream(this.#ctx);
  }

  /** Opens a consumer group; an existing one is accepted. See {@link GroupStart}. */
  openGroup(group: string, start: GroupStart): Promise<OpenGroupResult> {
    return openGroup(this.#ctx, group, start);
  }

  /** Pauses a group: its consumers everywhere stop reading and claiming. */
  pauseGroup(group: string): Promise<void> {
    return pauseGroup(this.#ctx, group);
  }

  /** Resumes a paused group; false when it was not paused. */
  resumeGroup(group: string): Promise<boolean> {
    return resumeGroup(this.#ctx, group);
  }

  /** True when the group is paused. */
  isGroupPaused(group: string): Promise<boolean> {
    return isGroupPaused(this.#ctx, group);
  }

  /** Moves a group's position to a start, an instant or an entry. */
  resetGroup(group: string, to: GroupStart): Promise<void> {
    return resetGroup(this.#ctx, group, to);
  }

  /** Deletes a group with its pending list and its state; false when there was none. */
  deleteGroup(group: string): Promise<boolean> {
    return deleteGroup(this.#ctx, group);
  }

  /**
   * Starts a group consumer with a per-entry handler, on a dedicated connection: opens the group if
   * needed, then consumes until closed. See {@link GroupConsumer}.
   *
   * @throws InvalidArgumentError for a bad option, name or handler (nothing is sent).
   * @throws ServerError when the group cannot be opened (for example `WRONGTYPE`).
   */
  consume(group: string, handler: GroupHandler, options: ConsumeOptions): Promise<GroupConsumer> {
    return startConsumer(this.#ctx, group, handler, false, { ...this.#trace(), ...options });
  }

  /**
   * Like {@link consume}, with a handler that takes each read's entries together and answers one
   * verdict per entry (or nothing, to ack them all). `concurrency` does not apply.
   */
  consumeBatch(group: string, handler: GroupBatchHandler, options: ConsumeOptions): Promise<GroupConsumer> {
    return startConsumer(this.#ctx, group, handler, true, { ...this.#trace(), ...options });
  }

  /** Reads this stream's dead letters, oldest first. */
  deadLetters(range: DeadLetterRange = {}): Promise<DeadLetter[]> {
    return deadLetters(this.#ctx, range);
  }

  /** Puts dead letters back in front of their group. */
  redrive(target: RedriveTarget): Promise<RedriveResult> {
    return redrive(this.#ctx, target);
  }

  /** The lag of every group of this stream, or of one. */
  lag(group?: string): Promise<GroupLag[]> {
    return lag(this.#ctx, group);
  }

  /** A plain tail of this stream, without a group, as an async iterator. See {@link StreamTail}. */
  tail(options: TailOptions = {}): StreamTail {
    return new StreamTail(this.#ctx.conn, this.queue, this.name, { ...this.#trace(), ...options });
  }

  /** The stream's trace option, spread under the caller's options: a consumer or tail may still say otherwise. */
  #trace(): TraceContextOption {
    return this.#ctx.traceContext ? { traceContext: true } : {};
  }
}
