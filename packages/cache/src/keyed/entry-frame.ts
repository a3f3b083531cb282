import { type BrandedId, ID_LENGTH, decodeId, encodeId } from '@echo/protocol';
import { CorruptL2FrameError } from '../errors.js';

/** Digits of the soft expiry after the version: Unix milliseconds, zero-padded; 0 never expires. */
const EXPIRY_DIGITS = 13;
/** Where the value starts. */
export const ENTRY_HEADER = ID_LENGTH + EXPIRY_DIGITS;

/** A keyed entry's L2 frame, read back. */
export interface EntryFrame {
  readonly version: BrandedId;
  /** Unix ms after which the entry is stale (servable only in grace); 0 for never. */
  readonly expiresAt: number;
  readonly bytes: Buffer;
}

/**
 * The version kind of a frame that holds no value ([TS]): a cached `undefined`, which no codec has
 * to carry (JSON cannot). Its value bytes are empty. Newer-wins compares the snowflake only, so the
 * kind changes nothing in how the frame's version orders against others.
 */
export const ABSENT_KIND = 'NIL';

/** The version a write of `value` stores: `version` itself, or the same snowflake as {@link ABSENT_KIND} for `undefined`. */
export function storedVersion(value: unknown, version: BrandedId): BrandedId {
  return value === undefined ? encodeId(ABSENT_KIND, decodeId(version).snowflake) : version;
}

/** True when a frame with this version holds `undefined`. */
export function holdsUndefined(version: string): boolean {
  return version.startsWith(ABSENT_KIND);
}

/**
 * `version(14) ++ softExpiry(13 digits) ++ value` ([TS], keyed namespaces). The spec's table frame
 * (`version ++ value`) is kept for declared tables; a keyed entry also carries its soft expiry so
 * that every process, and the `cache_read` script, can tell a fresh entry from one in grace while
 * the server keeps it (its `PX` is `ttl + grace`).
 *
 * A text value gives a text frame (the header is ASCII, so its bytes on the wire are the same): the
 * value is then encoded to UTF-8 once, as the command is written, instead of being copied into a
 * Buffer here and again by the client.
 */
export function encodeEntryFrame(version: BrandedId, expiresAt: number, value: Buffer | string): Buffer | string {
  const expiry = String(expiresAt).padStart(EXPIRY_DIGITS, '0');
  if (typeof value === 'string') return version + expiry + value;
  const head = Buffer.allocUnsafe(ENTRY_HEADER);
  head.write(version, 0, ID_LENGTH, 'latin1');
  head.write(expiry, ID_LENGTH, EXPIRY_DIGITS, 'latin1');
  return Buffer.concat([head, value]);
}

/**
 * Reads a frame from the bytes GET answered, or from a script's text reply (UTF-8 text for text
 * codecs, hex for binary ones).
 *
 * @throws CorruptL2FrameError when the frame is shorter than its header or its expiry is not digits.
 */
export function decodeEntryFrame(key: string, frame: Buffer | string, hex = false): EntryFrame {
  const buffer = typeof frame === 'string' ? Buffer.from(frame, hex ? 'hex' : 'utf8') : frame;
  if (buffer.length < ENTRY_HEADER) throw new CorruptL2FrameError(key, buffer.length);
  const expiresAt = Number(buffer.toString('latin1', ID_LENGTH, ENTRY_HEADER));
  if (!Number.isSafeInteger(expiresAt)) throw new CorruptL2FrameError(key, buffer.length);
  return { version: buffer.toString('latin1', 0, ID_LENGTH) as BrandedId, expiresAt, bytes: buffer.subarray(ENTRY_HEADER) };
}
