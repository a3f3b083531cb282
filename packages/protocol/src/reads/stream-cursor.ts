import type { Connection } from '../connector/connection.js';
import { ConnectionLostError } from '../errors/connection.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { TypedEmitter } from '../typed-emitter.js';
import { sendRead, sendReads } from './read.js';
import type { StreamEntryReply } from './stream-entries.js';
import { compareStreamIds, isStreamId, STREAM_HEAD } from './stream-ids.js';
import { isNoSuchKey, xinfoStream, xread, xtop, type StreamInfo } from './streams.js';

/**
 * Where a {@link StreamCursor} starts: `head`, everything the stream still holds; `new`, entries
 * appended after the cursor opened; `{ after }`, entries after a stream id (the last one a reader
 * saw, to resume there).
 */
export type CursorStart = 'head' | 'new' | { readonly after: string };

/** How a {@link StreamCursor} reads. */
export interface StreamCursorOptions {
  /** Default `new`. */
  readonly from?: CursorStart;
  /** Entries per read. Default 100. */
  readonly count?: number;
  /** How long one blocking read waits before it is sent again. Default 5000 ms. */
  readonly blockMs?: number;
  /** `CLIENT SETNAME` for the cursor's own connection. */
  readonly connectionName?: string;
  /**
   * The fewest entries a trim of this stream ever leaves (its writers' `XADD … MAXLEN ~ n` keeps at
   * least n). At least `count`, it spares the gap check after a batch that caught up: a trim past the
   * position would leave a full batch past it, so only a full batch read unchecked is checked, after
   * it arrives. A trim below the bound while the cursor is caught up is then not seen (as a trim
   * after a read that found nothing never was). Default: no bound, every read after a batch is checked.
   */
  readonly retainsAtLeast?: number;
}

/**
 * Entries the cursor never read were removed from the stream (a trim, or an `XDEL`) before it got to
 * them: what it reads next comes after a hole.
 */
export interface StreamGap {
  /** The cursor's position: the last id it read, or where it started. */
  readonly after: string;
  /** The first id the stream still holds after `after`; `undefined` when it holds none. */
  readonly firstRetained: string | undefined;
}

/** What a {@link StreamCursor} reports. */
export interface StreamCursorEvents {
  /** Entries after the position were removed before they were read; the read goes on after the gap. */
  gap: StreamGap;
  /** A read failed with the connection; the next read resumes after {@link StreamCursor.position}. */
  lost: { readonly error: Error };
}

/** One read's entries; `caughtUp` when the read answered everything the stream held past the position. */
export interface StreamBatch {
  /** The entries read, in stream order; none on a timeout or once closed. */
  readonly entries: readonly StreamEntryReply[];
  /** Fewer than `count` came back: at the time of the read, nothing more was there. */
  readonly caughtUp: boolean;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(name, `must be a positive integer, got ${String(value)}`);
  return value;
}

function startOf(from: CursorStart): string | undefined {
  const value: unknown = from;
  if (value === 'new') return undefined;
  if (value === 'head') return STREAM_HEAD;
  if (typeof value === 'object' && value !== null && 'after' in value && isStreamId(value.after)) return value.after;
  throw new InvalidArgumentError('from', `must be "head", "new" or { after: "<ms>-<seq>" }, got ${JSON.stringify(value)}`);
}

const EMPTY: StreamBatch = { entries: [], caughtUp: true };

/**
 * A position in one stream, read forward with blocking `XREAD`s on a connection of its own (a
 * duplicate of the one it is given, so a blocked read holds no one else's socket). The primitive
 * under every plain stream reader: nothing is acked or stored on the server; the position lives here.
 *
 * - `new` is resolved once, to the newest id when the cursor opens, so no entry appended between two
 *   reads is skipped (a literal `$` would be).
 * - A read that fails with the connection reports `lost`; the next read resumes after the last id
 *   read, whatever the connector did to reconnect.
 * - With a `gap` listener, whenever it may have fallen behind (after a batch, a lost read, or a
 *   start `{ after }`; under `retainsAtLeast`, after a full batch only, and a full batch read
 *   unchecked is checked once it arrives), the next read is pipelined behind an `XINFO STREAM`: when the stream lost
 *   entries past the position before they were read (trimmed, or deleted), a `gap` event says so
 *   once, with the first id it still holds. It errs on the safe side: a trim that took exactly the
 *   entries up to the position also reads as a gap.
 * - {@link close} drops the connection at once, cutting a blocked read, which then answers nothing.
 *
 * Read it batch by batch with {@link read}, or entry by entry as an async iterator (which rides out
 * lost reads and rethrows anything else).
 *
 * @example
 * ```ts
 * const cursor = new StreamCursor(conn, 'audit', { from: { after: saved } });
 * cursor.on('gap', (gap) => console.warn('entries lost after', gap.after, 'reading on at', gap.firstRetained));
 * for await (const entry of cursor) {
 *   console.log(entry.id, entry.fields);
 *   saved = entry.id;
 *   if (done) break; // closes the cursor
 * }
 * ```
 */
export class StreamCursor extends TypedEmitter<StreamCursorEvents> implements AsyncIterableIterator<StreamEntryReply> {
  /** The stream key. */
  readonly key: string;
  readonly #parent: Connection;
  readonly #name: string | undefined;
  readonly #count: number;
  readonly #blockMs: number;
  /** A short batch proves no trim passed the position (see `retainsAtLeast`). */
  readonly #floored: boolean;
  #position: string | undefined;
  /** The position may be behind the stream's retained range: check before the next read. */
  #behind: boolean;
  /** The front (or deleted id) a gap was last reported for. */
  #reported = STREAM_HEAD;
  #opening: Promise<Connection> | undefined;
  #resolving: Promise<void> | undefined;
  #conn: Connection | undefined;
  #buffer: StreamEntryReply[] = [];
  #closed = false;

  /**
   * Checks the options; the connection opens on the first read (or {@link ready}).
   *
   * @throws InvalidArgumentError for an empty key or a bad option.
   */
  constructor(conn: Connection, key: string, options: StreamCursorOptions = {}) {
    super();
    if (typeof key !== 'string' || key === '') throw new InvalidArgumentError('key', 'must be a non-empty string');
    this.key = key;
    this.#parent = conn;
    this.#name = options.connectionName;
    this.#position = startOf(options.from ?? 'new');
    this.#behind = typeof options.from === 'object';
    this.#count = positive('count', options.count ?? 100);
    this.#blockMs = positive('blockMs', options.blockMs ?? 5000);
    this.#floored = options.retainsAtLeast !== undefined && positive('retainsAtLeast', options.retainsAtLeast) >= this.#count;
  }

  /** The id of the last entry read (or the start), where the next read begins; `undefined` before `new` is resolved. */
  get position(): string | undefined {
    return this.#position;
  }

  /** True once {@link close} was called (or a `for await` broke out). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Opens the connection and fixes the position, which the first read otherwise does. Await it when
   * `from: 'new'` must exclude nothing appended after this point.
   */
  async ready(): Promise<void> {
    let conn: Connection;
    try {
      conn = await (this.#opening ??= this.#parent.duplicate(this.#name));
    } catch (error) {
      // A failed open is tried again by the next read.
      this.#opening = undefined;
      throw error;
    }
    this.#conn = conn;
    if (this.#closed) {
      await conn.close({ immediate: true });
      return;
    }
    if (this.#position !== undefined) return;
    // One resolution of `new` even when ready() and a read race: a second, later top could skip entries.
    this.#resolving ??= sendRead(conn, xtop({ key: this.key })).then(
      (top) => {
        this.#position ??= top ?? STREAM_HEAD;
      },
      (error: unknown) => {
        this.#resolving = undefined;
        throw error;
      },
    );
    await this.#resolving;
  }

  /**
   * Reads the next batch after the position: waits up to `blockMs` for an entry (unless `block` is
   * false: a reader catching up after a loss wants to know at once that it has), and answers an
   * empty batch on a timeout or once closed. A `gap` is emitted before the batch that follows it.
   *
   * @throws the connection's typed error when the read fails (after `lost` for a lost connection);
   *   the next read resumes after the position.
   */
  async read(options: { readonly block?: boolean } = {}): Promise<StreamBatch> {
    const blockMs = options.block === false ? undefined : this.#blockMs;
    try {
      await this.ready();
      const conn = this.#conn;
      const after = this.#position;
      if (conn === undefined || after === undefined || this.#closed) return EMPTY;
      // Only a reader that listens for gaps pays for the check.
      const gaps = this.listenerCount('gap') > 0;
      const checked = this.#behind && gaps;
      const entries = checked ? await this.#readChecked(conn, after, blockMs) : await sendRead(conn, xread({ key: this.key, after, count: this.#count, ...(blockMs === undefined ? {} : { blockMs }) }));
      // Closed while the read was out: what it brought is not delivered.
      if (this.closed) return EMPTY;
      const full = entries.length === this.#count;
      // A full batch read unchecked may follow a trim past the position: look now, from where it read.
      if (gaps && !checked && full && this.#floored) await this.#checkAfter(conn, after, entries);
      const last = entries.at(-1);
      if (last !== undefined) this.#position = last.id;
      // Entries arrived, so the reader now spends time on them: the stream may move past it meanwhile
      // (past its retained range only by a full batch, under a floor).
      this.#behind = entries.length > 0 && (full || !this.#floored);
      return { entries, caughtUp: !full };
    } catch (error) {
      if (this.#closed) return EMPTY;
      this.#behind = true;
      if (error instanceof ConnectionLostError) this.emit('lost', { error });
      throw error;
    }
  }

  /** The next entry, waiting for one as long as it takes; rides out lost reads, rethrows other errors. */
  async next(): Promise<IteratorResult<StreamEntryReply, undefined>> {
    for (;;) {
      if (this.#closed) return { done: true, value: undefined };
      const entry = this.#buffer.shift();
      if (entry !== undefined) return { done: false, value: entry };
      try {
        this.#buffer = [...(await this.read()).entries];
      } catch (error) {
        if (!(error instanceof ConnectionLostError)) throw error;
      }
    }
  }

  /** Called by `break` in a `for await`: closes the cursor. */
  async return(): Promise<IteratorResult<StreamEntryReply, undefined>> {
    await this.close();
    return { done: true, value: undefined };
  }

  /** The cursor itself: `for await (const entry of cursor)`. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Stops the cursor and closes its connection, cutting a blocked read at once. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#buffer = [];
    const opening = this.#opening;
    if (opening === undefined) return;
    // A connection still opening is closed by ready() once it arrives.
    const conn = await opening.catch(() => undefined);
    await conn?.close({ immediate: true });
  }

  /** `XINFO STREAM` and the read in one pipeline, so the gap check costs no extra round trip. */
  async #readChecked(conn: Connection, after: string, blockMs: number | undefined): Promise<readonly StreamEntryReply[]> {
    const read = xread({ key: this.key, after, count: this.#count, ...(blockMs === undefined ? {} : { blockMs }) });
    const [info, entries] = await sendReads(conn, [xinfoStream({ key: this.key }), read]);
    if (!entries.ok) throw entries.error;
    if (info.ok) this.#checkGap(info.value, after, entries.value);
    else if (!isNoSuchKey(info.error)) throw info.error;
    return entries.value;
  }

  /** `XINFO STREAM` after a read from `after`: errs on the safe side, as a trim since the read also counts. */
  async #checkAfter(conn: Connection, after: string, entries: readonly StreamEntryReply[]): Promise<void> {
    let info: StreamInfo;
    try {
      info = await sendRead(conn, xinfoStream({ key: this.key }));
    } catch (error) {
      if (isNoSuchKey(error)) return;
      throw error;
    }
    this.#checkGap(info, after, entries);
  }

  /**
   * A trim cuts the stream from the front, so entries past the position were lost exactly when the
   * position itself is gone (the oldest id the stream holds, or its top when it holds none, is past
   * it). `XDEL` leaves the front alone; `max-deleted-entry-id` past the position tells of it. At the
   * head (`0-0`) nothing was read yet, so a trimmed front is just where the stream begins.
   */
  #checkGap(info: StreamInfo, after: string, entries: readonly StreamEntryReply[]): void {
    if (after === STREAM_HEAD) return;
    const front = info.firstEntryId ?? info.lastGeneratedId;
    const trimmed = compareStreamIds(front, after) > 0;
    const deleted = compareStreamIds(info.maxDeletedEntryId, after) > 0;
    if (!trimmed && !deleted) return;
    const mark = trimmed ? front : info.maxDeletedEntryId;
    // One report per hole: the next check may see the same front before a read moves past it.
    if (compareStreamIds(mark, this.#reported) <= 0) return;
    this.#reported = mark;
    this.emit('gap', { after, firstRetained: entries[0]?.id ?? info.firstEntryId });
  }
}
