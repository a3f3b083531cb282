import { type Connection, cacheLogKey } from '@echo/protocol';

/** One entry of a namespace's coherence log. */
export interface LogEntry {
  /** The stream id, `ms-seq`. */
  readonly id: string;
  /** The write's version; empty for a released lease. */
  readonly version: string;
  /** `s` set, `d` delete, `c` clear, `r` lease released. */
  readonly op: 's' | 'd' | 'c' | 'r';
  readonly keys: readonly string[];
}

/** What the log reader tells its namespace. */
export interface LogHooks {
  apply(entries: readonly LogEntry[]): void;
  /** The feed broke (an error, a dropped connection): entries may be arriving late. */
  lost(): void;
  /** Entries were trimmed from the log before this process read them: L1 cannot be trusted. */
  gap(): void;
  /** A read issued at `issuedAt` came back with everything up to now applied. */
  caughtUp(issuedAt: number): void;
}

/** Entries read per call; a full batch means the reader lags and reads again at once. */
const BATCH = 512;
/** How long one blocking read waits before it reports "caught up" and reads again. */
const BLOCK_MS = 1000;

/**
 * The reading side of a keyed namespace's coherence ([TS]): one dedicated connection that reads the
 * namespace's bounded log `ecc:{<ns>}:log` with `XREAD BLOCK` from the last entry it applied. Unlike
 * pub/sub it loses nothing across a reconnect: the next read resumes where the last one stopped, and
 * only when the log was trimmed past that point (`max-deleted-entry-id`) does the namespace flush L1.
 */
export class CoherenceLog {
  readonly #connection: Connection;
  readonly #key: string;
  readonly #hooks: LogHooks;
  readonly #now: () => number;
  #lastId: string;
  #stopped = false;
  #recovering = false;
  #checkGap = false;
  #loop: Promise<void> = Promise.resolve();
  #read = 0;
  #replays = 0;
  #gaps = 0;

  private constructor(connection: Connection, key: string, lastId: string, hooks: LogHooks, now: () => number) {
    this.#connection = connection;
    this.#key = key;
    this.#lastId = lastId;
    this.#hooks = hooks;
    this.#now = now;
  }

  /** Opens the reader's connection (a duplicate of `connection`) and starts reading after the log's current end. */
  static async start(connection: Connection, namespace: string, hooks: LogHooks, now: () => number): Promise<CoherenceLog> {
    const key = cacheLogKey(namespace);
    const reader = await connection.duplicate(`echo-cache-log-${namespace}`);
    try {
      const last = (await reader.command('XREVRANGE', key, '+', '-', 'COUNT', 1)) as [string, unknown][];
      const log = new CoherenceLog(reader, key, last[0]?.[0] ?? '0-0', hooks, now);
      log.#loop = log.#run();
      return log;
    } catch (error) {
      await reader.close({ immediate: true });
      throw error;
    }
  }

  /** Entries applied, reads that resumed after a failure, and trims detected. */
  stats(): { readonly read: number; readonly replays: number; readonly gaps: number; readonly lastId: string } {
    return { read: this.#read, replays: this.#replays, gaps: this.#gaps, lastId: this.#lastId };
  }

  /** True once {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#connection.close({ immediate: true });
    await this.#loop;
  }

  async #run(): Promise<void> {
    let backoff = 10;
    while (!this.#stopped) {
      const issuedAt = this.#now();
      try {
        if (this.#checkGap) await this.#gapCheck();
        const block = this.#recovering ? [] : ['BLOCK', BLOCK_MS];
        const reply = (await this.#connection.command('XREAD', 'COUNT', BATCH, ...block, 'STREAMS', this.#key, this.#lastId)) as
          | [string, [string, string[]][]]
          | null;
        const raw = reply?.[1] ?? [];
        if (raw.length > 0) {
          const entries = raw.map(parseEntry);
          this.#lastId = raw[raw.length - 1]?.[0] ?? this.#lastId;
          this.#read += entries.length;
          this.#hooks.apply(entries);
        }
        // A full batch means more is waiting, which may include entries already trimmed away.
        if (raw.length === BATCH) this.#checkGap = true;
        else {
          if (this.#recovering) this.#replays++;
          this.#recovering = false;
          this.#hooks.caughtUp(issuedAt);
        }
        backoff = 10;
      } catch {
        if (this.stopped) return;
        this.#recovering = true;
        this.#checkGap = true;
        this.#hooks.lost();
        await new Promise((resolve) => setTimeout(resolve, backoff).unref());
        backoff = Math.min(backoff * 2, 1000);
      }
    }
  }

  async #gapCheck(): Promise<void> {
    const info = (await this.#connection.command('XINFO', 'STREAM', this.#key).catch((error: unknown) => {
      // A log that does not exist yet has lost nothing.
      if (error instanceof Error && /no such key/i.test(error.message)) return [];
      throw error;
    })) as unknown[];
    const at = info.indexOf('max-deleted-entry-id');
    const deleted = at >= 0 ? String(info[at + 1]) : '0-0';
    this.#checkGap = false;
    if (compareIds(deleted, this.#lastId) > 0) {
      this.#gaps++;
      this.#hooks.gap();
    }
  }
}

function parseEntry([id, fields]: [string, string[]]): LogEntry {
  let version = '';
  let op = 's';
  let keys = '';
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const value = fields[i + 1] ?? '';
    if (fields[i] === 'v') version = value;
    else if (fields[i] === 'o') op = value;
    else if (fields[i] === 'k') keys = value;
  }
  return { id, version, op: op as LogEntry['op'], keys: keys === '' ? [] : keys.split('\n') };
}

/** Orders two stream ids `ms-seq` numerically. */
export function compareIds(a: string, b: string): number {
  const [am = '0', as = '0'] = a.split('-');
  const [bm = '0', bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  if (ms !== 0n) return ms > 0n ? 1 : -1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq > 0n ? 1 : -1;
}
