import { type CoherenceEntry, type Connection, StreamCursor, cacheLogKey, parseCoherenceEntry } from '@echo/protocol/cache';
import type { CoherenceSource } from './source.js';

/** One entry of a namespace's coherence log. */
export type LogEntry = CoherenceEntry;

/** The log reader's counters and state, as namespace stats report them. */
export interface LogStats {
  /** Entries applied. */
  readonly read: number;
  /** Reads that resumed after a failure and caught up. */
  readonly replays: number;
  /** Trims detected (each flushed L1). */
  readonly gaps: number;
  /** Reads left unanswered past their bound (a held or half-open link): each stopped L1 answering until the feed caught up. */
  readonly stalls: number;
  /** Whether the feed is caught up since its last loss, so L1 may answer reads. */
  readonly live: boolean;
  /** The id of the last entry read. */
  readonly lastId: string;
}

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
/** The least `logMaxLen` a namespace takes: every trim then leaves at least one full batch. */
export const LOG_MIN_LEN = BATCH;
/** How long one blocking read waits before it reports "caught up" and reads again. */
const BLOCK_MS = 1000;
/**
 * A read unanswered this long means the feed is lost even though its socket looks open (a held or
 * half-open link): the server answers a blocking read by `BLOCK_MS`, and the margin covers a round
 * trip on a loaded machine. A false alarm costs only L1 hits until the next read answers.
 */
const SILENCE_MS = BLOCK_MS + 1000;
/** How often the silence is looked for; the bound on a lost feed is `SILENCE_MS` plus this. */
const WATCH_EVERY_MS = 250;

/**
 * The reading side of a keyed namespace's coherence ([TS]): a stream cursor, on its own connection,
 * over the namespace's bounded log `ecc:{<ns>}:log`, from the log's end when the namespace opened.
 * Unlike pub/sub it loses nothing across a reconnect: the next read resumes after the last entry
 * applied, and only when the log lost entries past that point before they were read (the cursor's
 * `gap`) does the namespace flush L1.
 */
export class CoherenceLog implements CoherenceSource<LogStats> {
  readonly #cursor: StreamCursor;
  readonly #hooks: LogHooks;
  readonly #now: () => number;
  #stopped = false;
  #recovering = false;
  #loop: Promise<void> = Promise.resolve();
  #read = 0;
  #replays = 0;
  #gaps = 0;
  #stalls = 0;
  /** Reads issued so far; the read in flight is number `#issued`. */
  #issued = 0;
  /** When (monotonic ms) the read in flight was issued; undefined between reads. */
  #pendingSince: number | undefined;
  /** Whether every entry is applied up to a read issued after the last loss (see {@link live}). */
  #live = true;
  /** The number of the last read issued before the feed was lost: only a later read can catch up. */
  #lostAfter = 0;
  #watch: NodeJS.Timeout | undefined;

  private constructor(cursor: StreamCursor, hooks: LogHooks, now: () => number) {
    this.#cursor = cursor;
    this.#hooks = hooks;
    this.#now = now;
    cursor.on('gap', () => this.#gap());
  }

  /**
   * Opens the reader's connection (a duplicate of `connection`) and starts reading after the log's
   * current end. Every cache script trims the log with `MAXLEN ~ logMaxLen`, which keeps at least
   * that many entries, and no process's `logMaxLen` is below {@link LOG_MIN_LEN}: so a batch that
   * caught up needs no trim check before the next read (a trim past it shows as a full batch, which
   * the cursor checks when it arrives). Its own writes come back in every batch, so this spares an
   * `XINFO STREAM` on nearly every read of a busy namespace.
   */
  static async start(connection: Connection, namespace: string, hooks: LogHooks, now: () => number): Promise<CoherenceLog> {
    const cursor = new StreamCursor(connection, cacheLogKey(namespace), {
      from: 'new',
      count: BATCH,
      blockMs: BLOCK_MS,
      connectionName: `echo-cache-log-${namespace}`,
      retainsAtLeast: LOG_MIN_LEN,
    });
    try {
      await cursor.ready();
    } catch (error) {
      await cursor.close();
      throw error;
    }
    const log = new CoherenceLog(cursor, hooks, now);
    log.#loop = log.#run();
    log.#watch = setInterval(() => log.#watchSilence(), WATCH_EVERY_MS);
    log.#watch.unref();
    return log;
  }

  /**
   * False from the moment the feed is lost (a failed read, or a read unanswered past its bound)
   * until a read issued after that has come back with everything up to then applied. While it is
   * false an L1 entry may be older than a write another process has acknowledged, so L1 must not
   * answer reads.
   */
  get trusted(): boolean {
    return this.#live;
  }

  /** Entries applied, reads that resumed after a failure, and trims detected. */
  stats(): LogStats {
    return { read: this.#read, replays: this.#replays, gaps: this.#gaps, stalls: this.#stalls, live: this.#live, lastId: this.#cursor.position ?? '0-0' };
  }

  /** True once {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#watch);
    await this.#cursor.close();
    await this.#loop;
  }

  async #run(): Promise<void> {
    let backoff = 10;
    while (!this.#stopped) {
      const issuedAt = this.#now();
      const number = ++this.#issued;
      this.#pendingSince = performance.now();
      try {
        // After a failure, do not wait on an empty log: catching up must be reported at once.
        const batch = await this.#cursor.read({ block: !this.#recovering });
        this.#pendingSince = undefined;
        if (this.stopped) return;
        this.#apply(batch.entries);
        if (batch.caughtUp) {
          if (this.#recovering) this.#replays++;
          this.#recovering = false;
          if (number > this.#lostAfter) this.#live = true;
          this.#hooks.caughtUp(issuedAt);
        }
        backoff = 10;
      } catch {
        this.#pendingSince = undefined;
        if (this.stopped) return;
        this.#recovering = true;
        this.#lose();
        await new Promise((resolve) => setTimeout(resolve, backoff).unref());
        backoff = Math.min(backoff * 2, 1000);
      }
    }
  }

  /** Marks the feed lost: L1 stops answering until a read issued from now on catches up. */
  #lose(): void {
    this.#live = false;
    this.#lostAfter = this.#issued;
    this.#hooks.lost();
  }

  /** A read outliving its block by the margin: the link holds replies back, so the feed is lost. */
  #watchSilence(): void {
    const since = this.#pendingSince;
    if (this.#stopped || since === undefined || !this.#live || performance.now() - since <= SILENCE_MS) return;
    this.#stalls++;
    this.#lose();
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
