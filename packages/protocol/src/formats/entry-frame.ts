import type { BrandedId } from '../ids/branded.js';
import { ID_LENGTH } from '../ids/codec.js';

/** Digits of the soft expiry after the version: Unix milliseconds, zero-padded; 0 never expires. */
const EXPIRY_DIGITS = 13;

/** Where a keyed entry frame's value starts: the version, then the soft expiry. */
export const ENTRY_FRAME_HEADER = ID_LENGTH + EXPIRY_DIGITS;

/** A keyed cache entry's L2 frame, read back. */
export interface EntryFrame {
  /** The write's version (the first 14 bytes). */
  readonly version: BrandedId;
  /** Unix ms after which the entry is stale (servable only in grace); 0 for never. */
  readonly expiresAt: number;
  /** The encoded value, after the header. */
  readonly bytes: Buffer;
}

/**
 * `version(14) ++ softExpiry(13 digits) ++ value` [TS], the frame of a keyed namespace's entry
 * `ecc:{<ns>}:k:<key>`. The spec's table frame (`version ++ value`) is kept for declared tables; a
 * keyed entry also carries its soft expiry so that every process, and the `cache_read` script (which
 * reads the same 27-byte header), can tell a fresh entry from one in grace while the server keeps it.
 *
 * A text value gives a text frame (the header is ASCII, so its bytes on the wire are the same): the
 * value is then encoded to UTF-8 once, as the command is written, instead of being copied into a
 * Buffer here and again by the client.
 */
export function encodeEntryFrame(version: BrandedId, expiresAt: number, value: Buffer | string): Buffer | string {
  const expiry = String(expiresAt).padStart(EXPIRY_DIGITS, '0');
  if (typeof value === 'string') return version + expiry + value;
  const head = Buffer.allocUnsafe(ENTRY_FRAME_HEADER);
  head.write(version, 0, ID_LENGTH, 'latin1');
  head.write(expiry, ID_LENGTH, EXPIRY_DIGITS, 'latin1');
  return Buffer.concat([head, value]);
}

/**
 * Reads a frame from the bytes `GET` answered, or from a script's text reply (UTF-8 text for text
 * codecs, hex for binary ones); `undefined` when it is shorter than its header or its expiry is
 * not digits.
 */
export function parseEntryFrame(frame: Buffer | string, hex = false): EntryFrame | undefined {
  const buffer = typeof frame === 'string' ? Buffer.from(frame, hex ? 'hex' : 'utf8') : frame;
  if (buffer.length < ENTRY_FRAME_HEADER) return undefined;
  const expiry = buffer.toString('latin1', ID_LENGTH, ENTRY_FRAME_HEADER);
  if (!/^\d+$/.test(expiry)) return undefined;
  return { version: buffer.toString('latin1', 0, ID_LENGTH) as BrandedId, expiresAt: Number(expiry), bytes: buffer.subarray(ENTRY_FRAME_HEADER) };
}
