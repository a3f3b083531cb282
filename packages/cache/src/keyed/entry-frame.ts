import { decodeId, encodeId, parseEntryFrame, type BrandedId, type EntryFrame } from '@echo/protocol/cache';
import { CorruptL2FrameError } from '../base/errors.js';

export { encodeEntryFrame, type EntryFrame } from '@echo/protocol/cache';

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
 * Reads a keyed entry's frame (the protocol's format) from the bytes GET answered, or from a
 * script's text reply (UTF-8 text for text codecs, hex for binary ones).
 *
 * @throws CorruptL2FrameError when the frame is shorter than its header or its expiry is not digits.
 */
export function decodeEntryFrame(key: string, frame: Buffer | string, hex = false): EntryFrame {
  const parsed = parseEntryFrame(frame, hex);
  if (parsed === undefined) throw new CorruptL2FrameError(key, typeof frame === 'string' ? Buffer.byteLength(frame, hex ? 'hex' : 'utf8') : frame.length);
  return parsed;
}
