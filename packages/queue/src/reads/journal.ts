import { InvalidArgumentError, isConnectionLike, StreamCursor, entryFields, isStreamId, parseEvent, type Connection, type CursorStart, type LifecycleEvent } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { checkJournalOptions } from '../core/option-checks.js';

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

/** The event a journal entry's field list holds, read exactly as a channel message is read. */
function eventOf(fields: readonly string[] | null): LifecycleEvent | undefined {
  return fields === null ? undefined : parseEvent(JSON.stringify(entryFields(fields)));
}

function startOf(from: JournalStart): CursorStart {
  const value: unknown = from;
  if (value === 'head' || value === 'new') return value;
  if (typeof value === 'object' && value !== null && 'after' in value && isStreamId(value.after)) return { after: value.after };
  throw new InvalidArgumentError('from', `must be "head", "new" or { after: "<ms>-<seq>" }, got ${JSON.stringify(value)}`);
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
  readonly #cursor: StreamCursor;
  #last: string | undefined;

  /**
   * Checks the arguments and options; the connection opens on the first read (or {@link ready}).
   * @throws UnknownOptionError for an option the journal does not read; InvalidArgumentError for a
   *   bad option, a `conn` that is not an open Connection or an empty `key`.
   */
  constructor(conn: Connection, key: string, options: JournalOptions = {}) {
    // Checked at run time: JavaScript callers reach this constructor directly, not through queue.journal().
    if (!isConnectionLike(conn)) throw new InvalidArgumentError('new EventsJournal conn', 'must be an open Connection');
    if (typeof key !== 'string' || key === '') throw new InvalidArgumentError('new EventsJournal key', 'must be the journal key, a non-empty string');
    checkJournalOptions(options);
    this.key = key;
    const from = startOf(options.from ?? 'new');
    this.#cursor = new StreamCursor(conn, key, {
      from,
      count: options.count ?? 100,
      blockMs: options.blockMs ?? 5000,
      ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
    });
  }

  /** The journal id of the last entry handed out: pass it as `{ after }` to resume there. */
  get lastId(): string | undefined {
    return this.#last;
  }

  /** True once {@link close} was called (or a `for await` broke out). */
  get closed(): boolean {
    return this.#cursor.closed;
  }

  async next(): Promise<IteratorResult<JournalEntry, undefined>> {
    for (;;) {
      const next = await this.#cursor.next();
      if (next.done === true) return next;
      const event = eventOf(next.value.fields);
      if (event === undefined) continue;
      this.#last = next.value.id;
      return { done: false, value: { id: next.value.id, event } };
    }
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
    await this.#cursor.ready();
  }

  /** Stops the reader and closes its connection, cutting a blocked read at once. Idempotent. */
  async close(): Promise<void> {
    await this.#cursor.close();
  }
}

/** A queue's journal reader; the constructor checks its options before anything is built. */
export function journalReader<T>(ctx: QueueContext<T>, options?: JournalOptions): EventsJournal {
  return new EventsJournal(ctx.conn, ctx.keys.journal, options);
}
