import { type BrandedId, ID_LENGTH } from '@echo/protocol/cache';
import { CorruptL2FrameError } from '../base/errors.js';

/** What an L2 frame holds: the write's version and the encoded value. */
export interface Frame {
  readonly version: BrandedId;
  readonly bytes: Buffer;
}

/**
 * `version(14) ++ valueBytes` (cache.md §2). The version leads so that the `coherence_drop` script
 * can compare it with `string.sub` without knowing the codec.
 */
export function encodeFrame(version: BrandedId, value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([Buffer.from(version, 'latin1'), bytes]);
}

/**
 * Splits a frame read from `key`. The version bytes are taken as they are: the spec checks only the
 * length, and newer-wins compares bytes, so a foreign version still orders consistently.
 *
 * @throws CorruptL2FrameError when the frame is shorter than 14 bytes.
 */
export function decodeFrame(key: string, frame: Buffer): Frame {
  if (frame.length < ID_LENGTH) throw new CorruptL2FrameError(key, frame.length);
  return {
    version: frame.toString('latin1', 0, ID_LENGTH) as BrandedId,
    bytes: frame.subarray(ID_LENGTH),
  };
}
