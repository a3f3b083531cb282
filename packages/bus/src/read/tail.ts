import { InvalidArgumentError, StreamCursor, type Connection, type CursorStart, type EvtId } from '@echo/protocol/bus';
import type { StreamEntry } from '../record/fields.js';
import { instantMs, MAX_TAIL, type Instant } from '../record/instant.js';
import { streamKey } from '../core/keys.js';
import { checkPosition, checkTailOptions } from '../core/option-checks.js';
import { readEntry, type TraceContextOption } from '../record/trace-fields.js';
import { xaddId } from '../record/xadd-id.js';

/** Where a {@link StreamTail} starts. */
export type TailStart = 'new' | 'head' | { readonly after: EvtId } | { readonly at: Instant };

/** How a {@link StreamTail} reads; `traceContext` strips the trace fields of a stream that carries them. */
export interface TailOptions extends TraceContextOption {
  /**
   * `new` (default): entries appended after the tail opened; `head`: the whole stream; `{ after }`:
   * entries after an id (resume from the last one seen); `{ at }`: entries minted at or after an instant.
   */
  readonly from?: TailStart;
  /** Entries per read. Default 100. */
  readonly count?: number;
  /** How long one blocking read waits before it is sent again. Default 5000 ms. */
  readonly blockMs?: number;
  /** `CLIENT SETNAME` for the dedicated connection. */
  readonly connectionName?: string;
}

function cursorOf(from: TailStart): CursorStart {
  const value: unknown = from;
  if (value === 'new' || value === 'head') return value;
  if (typeof value === 'object' && value !== null) {
    checkPosition(value);
    if ('at' in value && 'after' in value) throw new InvalidArgumentError('from', 'give { at } or { after }, not both');
    if ('after' in value && typeof value.after === 'string') return { after: xaddId(value.after) };
    if ('at' in value) {
      const ms = instantMs(value.at as Instant, 'from.at');
      return ms === 0 ? 'head' : { after: `${ms - 1}-${MAX_TAIL}` };
    }
  }
  throw new InvalidArgumentError('from', `must be "new", "head", { after } or { at }, got ${JSON.stringify(value)}`);
}

/**
 * A plain tail of a stream, without a group: an async iterator of its records in stream order,
 * read with blocking `XREAD`s on a connection of its own (bus.md §2.3). For dashboards and tools:
 * nothing is acked and nothing is remembered on the server; to resume later, pass the last id seen
 * as `{ after }`. A lost connection is ridden out: the next read resumes after the last record.
 *
 * @example
 * ```ts
 * for await (const [id, fields] of stream.tail({ from: 'head' })) {
 *   render(id, fields);
 *   if (done) break; // closes the tail's connection
 * }
 * ```
 */
export class StreamTail implements AsyncIterableIterator<StreamEntry> {
  /** The stream key. */
  readonly key: string;
  readonly #cursor: StreamCursor;
  readonly #traced: boolean;
  #last: EvtId | undefined;

  /**
   * Checks the options; the connection opens on the first read.
   *
   * @throws InvalidArgumentError for a bad option (UnknownOptionError for an unknown one); InvalidNameError for a bad name.
   */
  constructor(conn: Connection, queue: string, name: string, options: TailOptions = {}) {
    checkTailOptions(options);
    this.key = streamKey(queue, name);
    const from = cursorOf(options.from ?? 'new');
    this.#cursor = new StreamCursor(conn, this.key, {
      from,
      count: options.count ?? 100,
      blockMs: options.blockMs ?? 5000,
      ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
    });
    this.#traced = options.traceContext === true;
  }

  /** True once {@link close} was called (or a `for await` broke out). */
  get closed(): boolean {
    return this.#cursor.closed;
  }

  /** The id of the last record handed out: pass it as `{ after }` to resume there. */
  get lastId(): EvtId | undefined {
    return this.#last;
  }

  async next(): Promise<IteratorResult<StreamEntry, undefined>> {
    for (;;) {
      const next = await this.#cursor.next();
      if (next.done === true) return next;
      if (next.value.fields === null) continue;
      const entry = readEntry(next.value.id, next.value.fields, this.#traced);
      this.#last = entry[0];
      return { done: false, value: entry };
    }
  }

  /** Called by `break` in a `for await`: closes the tail. */
  async return(): Promise<IteratorResult<StreamEntry, undefined>> {
    await this.close();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Stops the tail and closes its connection, cutting a blocked read at once. Idempotent. */
  async close(): Promise<void> {
    await this.#cursor.close();
  }

  /**
   * Opens the tail's connection and fixes its position, which the first read otherwise does. Await
   * it when `from: 'new'` must exclude nothing appended after this point.
   */
  async ready(): Promise<void> {
    await this.#cursor.ready();
  }
}
