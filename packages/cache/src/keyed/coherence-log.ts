import { type CoherenceEntry, type Connection, StreamCursor, cacheLogKey, parseCoherenceEntry } from '@echo/protocol';

/** One entry of a namespace's coherence log. */
export type LogEntry = CoherenceEntry;

/** What the log reader tells its namespace. */
export interface LogHooks {
  apply(entries: readonly LogEntry[]): void;
  /** The feed broke (an error, a dropped connection): entries may be arriving late. */
  lost(): void;
  /** Entries were trimmed from the log before this process read them (or one could not be read): L1 cannot be trusted. */
  gap(): void;
  /** A read issued at `issuedAt` came back with everything up to now applied. */
  caughtUp(issuedAt: number): void;
}

/** Entries read per call; a full batch means the reader lags and reads again at once. */
const BATCH = 512;
/** How long one blocking read waits before it reports "caught up" and reads again. */
const BLOCK_MS = 1000;

/**
 * The reading side of a keyed namespace's coherence ([TS]): a stream cursor, on its own connection,
 * over the namespace's bounded log `ecc:{<ns>}:log`, from the log's end when the namespace opened.
 * Unlike pub/sub it loses nothing across a reconnect: the next read resumes after the last entry
 * applied, and only when the log lost entries past that point before they were read (the cursor's
 * `gap`) does the namespace flush L1.
 */
export class CoherenceLog {
  readonly #cursor: StreamCursor;
  readonly #hooks: LogHooks;
  readonly #now: () => number;
  #stopped = false;
  #recovering = false;
  #loop: Promise<void> = Promise.resolve();
  #read = 0;
  #replays = 0;
  #gaps = 0;

  private constructor(cursor: StreamCursor, hooks: LogHooks, now: () => number) {
    this.#cursor = cursor;
    this.#hooks = hooks;
    this.#now = now;
    cursor.on('gap', () => this.#gap());
  }

  /** Opens the reader's connection (a duplicate of `connection`) and starts reading after the log's current end. */
  static async start(connection: Connection, namespace: string, hooks: LogHooks, now: () => number): Promise<CoherenceLog> {
    const cursor = new StreamCursor(connection, cacheLogKey(namespace), { from: 'new', count: BATCH, blockMs: BLOCK_MS, connectionName: `echo-cache-log-${namespace}` });
    try {
      await cursor.ready();
    } catch (error) {
      await cursor.close();
      throw error;
    }
    const log = new CoherenceLog(cursor, hooks, now);
    log.#loop = log.#run();
    return log;
  }

  /** Entries applied, reads that resumed after a failure, and trims detected. */
  stats(): { readonly read: number; readonly replays: number; readonly gaps: number; readonly lastId: string } {
    return { read: this.#read, replays: this.#replays, gaps: this.#gaps, lastId: this.#cursor.position ?? '0-0' };
  }

  /** True once {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#cursor.close();
    await this.#loop;
  }

  async #run(): Promise<void> {
    let backoff = 10;
    while (!this.#stopped) {
      const issuedAt = this.#now();
      try {
        // After a failure, do not wait on an empty log: catching up must be reported at once.
        const batch = await this.#cursor.read({ block: !this.#recovering });
        if (this.stopped) return;
        this.#apply(batch.entries);
        if (batch.caughtUp) {
          if (this.#recovering) this.#replays++;
          this.#recovering = false;
          this.#hooks.caughtUp(issuedAt);
        }
        backoff = 10;
      } catch {
        if (this.stopped) return;
        this.#recovering = true;
        this.#hooks.lost();
        await new Promise((resolve) => setTimeout(resolve, backoff).unref());
        backoff = Math.min(backoff * 2, 1000);
      }
    }
  }

  #apply(raw: readonly { readonly id: string; readonly fields: readonly string[] | null }[]): void {
    if (raw.length === 0) return;
    const entries: LogEntry[] = [];
    let unreadable = false;
    for (const { id, fields } of raw) {
      const entry = fields === null ? undefined : parseCoherenceEntry(id, fields);
      if (entry === undefined) unreadable = true;
      else entries.push(entry);
    }
    this.#read += entries.length;
    if (entries.length > 0) this.#hooks.apply(entries);
    // An entry this build cannot read may have invalidated anything: as good as a gap.
    if (unreadable) this.#gap();
  }

  #gap(): void {
    this.#gaps++;
    this.#hooks.gap();
  }
}
