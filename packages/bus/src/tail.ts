import { ConnectionLostError, InvalidArgumentError, type Connection, type EvtId } from '@echo/protocol';
import type { StreamEntry } from './fields.js';
import { instantMs, MAX_TAIL, type Instant } from './instant.js';
import { streamKey } from './keys.js';
import { checkPosition, checkTailOptions } from './option-checks.js';
import { rawEntries, readGroupEntries } from './replies.js';
import { readEntry, type TraceContextOption } from './trace-fields.js';
import { xaddId } from './xadd-id.js';

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

function cursorOf(from: TailStart): string | undefined {
  const value: unknown = from;
  if (value === 'new') return undefined;
  if (value === 'head') return '0-0';
  if (typeof value === 'object' && value !== null) {
    checkPosition(value);
    if ('at' in value && 'after' in value) throw new InvalidArgumentError('from', 'give { at } or { after }, not both');
    if ('after' in value && typeof value.after === 'string') return xaddId(value.after);
    if ('at' in value) {
      const ms = instantMs(value.at as Instant, 'from.at');
      return ms === 0 ? '0-0' : `${ms - 1}-${MAX_TAIL}`;
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
  readonly #parent: Connection;
  readonly #options: TailOptions;
  readonly #count: string;
  readonly #block: string;
  #cursor: string | undefined;
  #conn: Connection | undefined;
  #buffer: StreamEntry[] = [];
  #last: EvtId | undefined;
  #closed = false;

  /**
   * Checks the options; the connection opens on the first read.
   *
   * @throws InvalidArgumentError for a bad option (UnknownOptionError for an unknown one); InvalidNameError for a bad name.
   */
  constructor(conn: Connection, queue: string, name: string, options: TailOptions = {}) {
    checkTailOptions(options);
    this.key = streamKey(queue, name);
    this.#parent = conn;
    this.#options = options;
    this.#cursor = cursorOf(options.from ?? 'new');
    const count = options.count ?? 100;
    const block = options.blockMs ?? 5000;
    if (!Number.isSafeInteger(count) || count < 1) throw new InvalidArgumentError('count', `must be a positive integer, got ${String(count)}`);
    if (!Number.isSafeInteger(block) || block < 1) throw new InvalidArgumentError('blockMs', `must be a positive integer, got ${String(block)}`);
    this.#count = String(count);
    this.#block = String(block);
  }

  /** True once {@link close} was called (or a `for await` broke out). */
  get closed(): boolean {
    return this.#closed;
  }

  /** The id of the last record handed out: pass it as `{ after }` to resume there. */
  get lastId(): EvtId | undefined {
    return this.#last;
  }

  async next(): Promise<IteratorResult<StreamEntry, undefined>> {
    while (this.#buffer.length === 0 || this.#closed) {
      if (this.#closed) return { done: true, value: undefined };
      try {
        await this.#fill();
      } catch (error) {
        if (this.closed) return { done: true, value: undefined };
        if (!(error instanceof ConnectionLostError)) throw error;
      }
    }
    const entry = this.#buffer.shift() as StreamEntry;
    this.#last = entry[0];
    return { done: false, value: entry };
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
    this.#closed = true;
    await this.#conn?.close({ immediate: true });
  }

  /**
   * Opens the tail's connection and fixes its position, which the first read otherwise does. Await
   * it when `from: 'new'` must exclude nothing appended after this point.
   */
  async ready(): Promise<void> {
    this.#conn ??= await this.#parent.duplicate(this.#options.connectionName);
    if (this.#closed) {
      await this.#conn.close({ immediate: true });
      return;
    }
    // `$` is resolved once, to the top's id, so no record appended between two reads is skipped.
    this.#cursor ??= rawEntries(await this.#conn.command('XREVRANGE', this.key, '+', '-', 'COUNT', '1'))[0]?.xid ?? '0-0';
  }

  async #fill(): Promise<void> {
    await this.ready();
    if (this.#conn === undefined || this.#cursor === undefined || this.#closed) return;
    const raw = readGroupEntries(await this.#conn.command('XREAD', 'COUNT', this.#count, 'BLOCK', this.#block, 'STREAMS', this.key, this.#cursor));
    for (const e of raw) {
      this.#cursor = e.xid;
      if (e.pairs !== null) this.#buffer.push(readEntry(e.xid, e.pairs, this.#options.traceContext === true));
    }
  }
}
