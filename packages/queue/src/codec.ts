import { CodecError } from '@echo/protocol';

/**
 * Turns payload values into the opaque text the wire stores and back. The wire never interprets a
 * payload; the codec is the only place that does, so a queue and its workers must share one.
 */
export interface Codec<T> {
  encode(value: T): string;
  decode(raw: string): T;
}

/** The default codec: JSON, refusing values JSON cannot carry (undefined, functions, cycles, bigint). */
export function jsonCodec<T>(): Codec<T> {
  return {
    encode(value: T): string {
      // JSON.stringify answers undefined (despite its declared type) for undefined and functions.
      let text: unknown;
      try {
        text = JSON.stringify(value);
      } catch (error) {
        throw new CodecError(`payload cannot be encoded as JSON: ${(error as Error).message}`, { cause: error });
      }
      if (typeof text !== 'string') throw new CodecError('payload cannot be encoded as JSON: it is undefined or a function');
      return text;
    },
    decode(raw: string): T {
      try {
        return JSON.parse(raw) as T;
      } catch (error) {
        throw new CodecError(`payload is not valid JSON: ${(error as Error).message}`, { cause: error });
      }
    },
  };
}

/** A codec that stores strings as they are, for callers who bring their own serialisation. */
export const rawCodec: Codec<string> = {
  encode(value: string): string {
    if (typeof value !== 'string') throw new CodecError('the raw codec carries strings only');
    return value;
  },
  decode: (raw: string) => raw,
};
