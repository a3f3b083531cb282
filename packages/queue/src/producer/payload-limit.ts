import { EchoError, InvalidArgumentError } from '@echo/protocol/queue';
import type { Codec } from '../core/codec.js';

/** The payload limit of a queue opened without `maxPayloadBytes`: 1 MiB of encoded text. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1_048_576;

/** An encoded payload over its queue's `maxPayloadBytes`; nothing was written. */
export class PayloadTooLargeError extends EchoError {
  /** The encoded payload's size in UTF-8 bytes. */
  readonly bytes: number;
  /** The queue's limit. */
  readonly limit: number;

  constructor(bytes: number, limit: number) {
    super('payload_too_large', `payload is ${String(bytes)} bytes encoded; this queue admits at most ${String(limit)}`);
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** Checks a `maxPayloadBytes` option: a whole number of bytes >= 1, or Infinity for no limit. */
export function resolvePayloadLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_MAX_PAYLOAD_BYTES;
  if (limit === Number.POSITIVE_INFINITY) return limit;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidArgumentError('maxPayloadBytes', 'must be an integer >= 1, or Infinity');
  return limit;
}

/**
 * The queue's codec with its size limit on every encode: every write of a payload (admissions,
 * flows, `updateData`, scheduler templates) encodes first, so an oversized one fails before a byte
 * is sent. Decoding is untouched: rows already stored stay readable.
 */
export function limitedCodec<T>(codec: Codec<T>, limit: number): Codec<T> {
  if (limit === Number.POSITIVE_INFINITY) return codec;
  return {
    encode(value: T): string {
      const text = codec.encode(value);
      // A UTF-16 unit is at most 3 UTF-8 bytes: most payloads skip the byte count.
      if (text.length * 3 <= limit) return text;
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > limit) throw new PayloadTooLargeError(bytes, limit);
      return text;
    },
    decode: (raw) => codec.decode(raw),
  };
}
