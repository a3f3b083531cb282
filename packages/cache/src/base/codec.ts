import { CodecError } from '@echo/protocol/cache';

/**
 * Turns a table's values into the bytes that follow the version in an L2 frame, and back. The
 * server never reads a value, so every process that shares a table must share its codec.
 */
export interface CacheCodec<T> {
  /** Bytes for L2; a string is stored as UTF-8. */
  encode(value: T): Buffer | string;
  /** The value from the bytes after the 14-byte version. */
  decode(bytes: Buffer): T;
  /**
   * True when the bytes may not be valid UTF-8. Keyed namespaces then ask their scripts for hex
   * replies, because script replies reach the cache as UTF-8 text. Default false.
   */
  readonly binary?: boolean;
}

/** The default codec: JSON as UTF-8, one shared object (a keyed namespace reads text replies for it). */
export { jsonCodec } from '@echo/protocol/cache';

/** Stores strings as UTF-8, for callers who serialise values themselves. */
export const stringCodec: CacheCodec<string> = {
  encode(value: string): string {
    if (typeof value !== 'string') throw new CodecError('the string codec carries strings only');
    return value;
  },
  decode: (bytes: Buffer) => bytes.toString('utf8'),
};

/** Stores bytes as they are. */
export const bufferCodec: CacheCodec<Buffer> = {
  binary: true,
  encode(value: Buffer): Buffer {
    if (!Buffer.isBuffer(value)) throw new CodecError('the buffer codec carries Buffers only');
    return value;
  },
  // A copy, because the reply buffer may be a view into a larger one that outlives the row.
  decode: (bytes: Buffer) => Buffer.from(bytes),
};
