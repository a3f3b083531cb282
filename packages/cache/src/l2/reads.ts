import { type Connection, reads } from '@echo/protocol/cache';

interface Waiting {
  readonly key: string;
  readonly resolve: (frame: Buffer | null) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Coalesces the plain L2 reads of one tick into one `MGET` (every key of a namespace shares its
 * hashtag, so one slot): a hundred callers each reading one key cost the server one command, and
 * the socket one write, instead of a hundred.
 */
export class L2Reads {
  readonly #connection: Connection;
  #waiting: Waiting[] = [];
  #batches = 0;

  constructor(connection: Connection) {
    this.#connection = connection;
  }

  /** `MGET`s sent, for stats and tests. */
  get batches(): number {
    return this.#batches;
  }

  /** The frame at `key`, or `null`; read with whatever else was asked in the same tick. */
  read(key: string): Promise<Buffer | null> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.push({ key, resolve, reject }) === 1) queueMicrotask(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#waiting;
    this.#waiting = [];
    this.#batches++;
    try {
      const reply = await reads.sendRead(this.#connection, reads.cacheFramesGet({ keys: batch.map((w) => w.key) }));
      for (let i = 0; i < batch.length; i++) {
        const frame = reply[i] ?? null;
        // An entry lease frame (`~L…`) is no value: another caller is loading the key.
        (batch[i] as Waiting).resolve(frame !== null && frame[0] === 0x7e && frame[1] === 0x4c ? null : frame);
      }
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }
}
