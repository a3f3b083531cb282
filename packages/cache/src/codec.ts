import { CodecError } from '@echo/protocol';

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

/**
 * The default codec: JSON as UTF-8. Values JSON cannot carry (`undefined`, functions, cycles,
 * `bigint`) are refused at the write, not discovered at a later read. One shared object, so two
 * declarations that both take the default name the same codec.
 */
export function jsonCodec<T>(): CacheCodec<T> {
  return JSON_CODEC as CacheCodec<T>;
}

const JSON_CODEC: CacheCodec<unknown> = {
  encode(value: unknown): string {
    let text: unknown;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      throw new CodecError(`cache value cannot be encoded as JSON: ${(error as Error).message}`, { cause: error });
    }
    // JSON.stringify answers undefined, despite its declared type, for undefined and functions.
    if (typeof text !== 'string') throw new CodecError('cache value cannot be encoded as JSON: it is undefined or a function');
    return text;
  },
  decode(bytes: Buffer): unknown {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw new CodecError(`cache value is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
  },
};

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
