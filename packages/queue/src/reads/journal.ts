import { ConnectionLostError, InvalidArgumentError, ServerError, parseEvent, type Connection, type LifecycleEvent } from '@echo/protocol';

/** Where an {@link EventsJournal} starts reading. */
export type JournalStart = 'head' | 'new' | { readonly after: string };

/** How {@link EventsJournal} reads. */
export interface JournalOptions {
  /**
   * `head`: everything the journal still holds; `new` (default): events journaled after the reader
   * opened; `{ after: id }`: events after a journal id, the {@link EventsJournal.lastId} of an
   * earlier reader, which is how a listener that was away catches up.
   */
  readonly from?: JournalStart;
  /** Entries per read. Default 100. */
  readonly count?: number;
  /** How long one blocking read waits before it is sent again. Default 5000 ms. */
  readonly blockMs?: number;
  /** `CLIENT SETNAME` for the dedicated connection. */
  readonly connectionName?: string;
}

/** One journaled event: its journal id (the stream entry id, `<ms>-<seq>`) and the event. */
export interface JournalEntry {
  readonly id: string;
  readonly event: LifecycleEvent;
}

const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;

function cursorOf(from: JournalStart): string | undefined {
  const value: unknown = from;
  if (value === 'new') return undefined;
  if (value === 'head') return '0-0';
  if (typeof value === 'object' && value !== null && 'after' in value && typeof value.after === 'string' && ENTRY_ID.test(value.after)) return value.after;
  throw new InvalidArgumentError('from', `must be "head", "new" or { after: "<ms>-<seq>" }, got ${JSON.stringify(value)}`);
}

function positive(name: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(name, `must be a positive integer, got ${String(value)}`);
  return String(value);
}

/** The event a journal entry's field list holds, read exactly as a channel message is read. */
function eventOf(pairs: readonly unknown[]): LifecycleEvent | undefined {
  const record: Record<string, unknown> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) record[String(pairs[i])] = pairs[i + 1];
  return parseEvent(JSON.stringify(record));
}

/** The `[xid, pairs]` entries of a one-stream XREAD or XREVRANGE reply, in either RESP shape. */
function entriesOf(reply: unknown, read: boolean): [string, readonly unknown[]][] {
  if (reply === null) return [];
  if (!Array.isArray(reply)) throw new ServerError(`unexpected journal reply: ${JSON.stringify(reply)}`);
  let list: unknown = reply;
  if (read) {
    const first: unknown = reply[0];
    if (first === undefined) return [];
    list = typeof first === 'string' ? reply[1] : Array.isArray(first) ? first[1] : undefined;
  }
  if (!Array.isArray(list)) throw new ServerError(`unexpected journal reply: ${JSON.stringify(reply)}`);
  return list.flatMap((item: unknown): [string, readonly unknown[]][] => {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || !Array.isArray(item[1])) return [];
    return [[item[0], item[1] as unknown[]]];
  });
}

/**
 * A reader of a queue's events journal (`emq:{q}:journal` [TS]): the durable twin of the events
 * channel, an async iterator of the events the scripts journaled, in the order they happened, with
 * blocking `XREAD`s on a connection of its own. The channel stays at most once; the journal is
 * what a listener that was disconnected reads to catch up: keep the {@link lastId} it saw, and open
 * the next reader `{ from: { after: lastId } }`. The queue must have its journal on
 * (`queue.setEvents({ journal: maxLen })`); the journal keeps about `maxLen` events.
 *
 * @example
 * ```ts
 * for await (const { id, event } of queue.journal({ from: { after: saved } })) {
 *   handle(event);
 *   saved = id;
 * }
 * ```
 */
export class EventsJournal implements AsyncIterableIterator<JournalEntry> {
  /** The journal key. */
  readonly key: string;
  readonly #parent: Connection;
  readonly #connectionName: string | undefined;
  readonly #count: string;
  readonly #block: string;
  #cursor: string | undefined;
  #conn: Connection | undefined;
  #buffer: JournalEntry[] = [];
  #last: string | undefined;
  #closed = false;

  /**
   * Checks the options; the connection opens on the first read (or {@link ready}).
   * @throws InvalidArgumentError for a bad option.
   */
  constructor(conn: Connection, key: string, options: JournalOptions = {}) {
    this.key = key;
    this.#parent = conn;
    this.#connectionName = options.connectionName;
    this.#cursor = cursorOf(options.from ?? 'new');
    this.#count = positive('count', options.count ?? 100);
    this.#block = positive('blockMs', options.blockMs ?? 5000);
  }

  /** The journal id of the last entry handed out: pass it as `{ after }` to resume there. */
  get lastId(): string | undefined {
    return this.#last;
  }

  /** True once {@link close} was called (or a `for await` broke out). */
  get closed(): boolean {
    return this.#closed;
  }

  async next(): Promise<IteratorResult<JournalEntry, undefined>> {
    while (this.#buffer.length === 0 || this.#closed) {
      if (this.#closed) return { done: true, value: undefined };
      try {
        await this.#fill();
      } catch (error) {
        if (this.closed) return { done: true, value: undefined };
        if (!(error instanceof ConnectionLostError)) throw error;
      }
    }
    const entry = this.#buffer.shift() as JournalEntry;
    this.#last = entry.id;
    return { done: false, value: entry };
  }

  /** Called by `break` in a `for await`: closes the reader. */
  async return(): Promise<IteratorResult<JournalEntry, undefined>> {
    await this.close();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * Opens the connection and fixes the position, which the first read otherwise does. Await it when
   * `from: 'new'` must exclude nothing journaled after this point.
   */
  async ready(): Promise<void> {
    this.#conn ??= await this.#parent.duplicate(this.#connectionName);
    if (this.#closed) {
      await this.#conn.close({ immediate: true });
      return;
    }
    // `$` is resolved once, to the top's id, so nothing journaled between two reads is skipped.
    this.#cursor ??= entriesOf(await this.#conn.command('XREVRANGE', this.key, '+', '-', 'COUNT', '1'), false)[0]?.[0] ?? '0-0';
  }

  /** Stops the reader and closes its connection, cutting a blocked read at once. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#conn?.close({ immediate: true });
  }

  async #fill(): Promise<void> {
    await this.ready();
    if (this.#conn === undefined || this.#cursor === undefined || this.#closed) return;
    const reply = await this.#conn.command('XREAD', 'COUNT', this.#count, 'BLOCK', this.#block, 'STREAMS', this.key, this.#cursor);
    for (const [id, pairs] of entriesOf(reply, true)) {
      this.#cursor = id;
      const event = eventOf(pairs);
      if (event !== undefined) this.#buffer.push({ id, event });
    }
  }
}
