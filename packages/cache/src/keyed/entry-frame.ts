import { parseEntryFrame, type EntryFrame } from '@echo/protocol';
import { CorruptL2FrameError } from '../errors.js';

export { encodeEntryFrame, type EntryFrame } from '@echo/protocol';

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
