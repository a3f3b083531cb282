import { CodecError } from '../errors/validation.js';

/**
 * JSON as text, the default codec of Echo's pillars: a queue's payloads and a cache's values. It
 * fits both codec shapes, since it encodes to a string and decodes a string or UTF-8 bytes.
 */
export interface JsonCodec<T> {
  /** The value as JSON text. @throws CodecError for what JSON cannot carry. */
  encode(value: T): string;
  /** The value back from JSON text or its UTF-8 bytes. @throws CodecError for text that is not JSON. */
  decode(raw: string | Buffer): T;
}

const JSON_CODEC: JsonCodec<unknown> = {
  encode(value: unknown): string {
    let text: unknown;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      throw new CodecError(`value cannot be encoded as JSON: ${(error as Error).message}`, { cause: error });
    }
    // JSON.stringify answers undefined, despite its declared type, for undefined and functions.
    if (typeof text !== 'string') throw new CodecError('value cannot be encoded as JSON: it is undefined or a function');
    return text;
  },
  decode(raw: string | Buffer): unknown {
    try {
      return JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
    } catch (error) {
      throw new CodecError(`value is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
  },
};

/**
 * The JSON codec: values JSON cannot carry (`undefined`, functions, cycles, `bigint`) are refused
 * when encoded, not discovered at a later read. One shared object, so two declarations that both
 * take the default name the same codec (a cache reads text replies for it).
 */
export function jsonCodec<T>(): JsonCodec<T> {
  // One object serves every T: it never looks at the type, only at the value.
  return JSON_CODEC as JsonCodec<T>;
}
