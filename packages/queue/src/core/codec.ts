import { CodecError, type LifecycleEvent } from '@echo/protocol/queue';

/**
 * Turns payload values into the opaque text the wire stores and back. The wire never interprets a
 * payload; the codec is the only place that does, so a queue and its workers must share one.
 */
export interface Codec<T> {
  encode(value: T): string;
  decode(raw: string): T;
}

/** The default codec: JSON, refusing values JSON cannot carry (undefined, functions, cycles, bigint). */
export { jsonCodec } from '@echo/protocol/queue';

/** A codec that stores strings as they are, for callers who bring their own serialisation. */
export const rawCodec: Codec<string> = {
  encode(value: string): string {
    if (typeof value !== 'string') throw new CodecError('the raw codec carries strings only');
    return value;
  },
  decode: (raw: string) => raw,
};

/**
 * A handler's result as the `result` field [TS] stores it, or `undefined` for none. A string that
 * no JSON reader would take (`'done'`) is stored as it is, so flow parents and other runtimes read
 * plain text; any other value, and a string that looks like JSON (`'42'`, `'{"a":1}'`), is stored
 * as JSON, so {@link decodeResult} always gives back the value the handler returned.
 * @throws what `JSON.stringify` throws for a cycle or a bigint.
 */
export function encodeResult(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  // The wire reads "" as no result, so an empty string travels as JSON.
  if (value === '') return '""';
  if (typeof value === 'string' && !readsAsJson(value)) return value;
  const text: unknown = JSON.stringify(value);
  // JSON.stringify answers undefined for a function or a symbol: nothing to record.
  return typeof text === 'string' ? text : undefined;
}

/** The value a stored result text stands for: JSON decoded, or the plain string it is. */
export function decodeResult(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  if (!readsAsJson(text)) return text;
  return JSON.parse(text) as unknown;
}

function readsAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The result a `completed` lifecycle event carries, decoded as {@link decodeResult} does; `undefined`
 * for another event or a job that gave none. The same value `getResult` and `waitUntilFinished` give.
 */
export function resultValue(event: LifecycleEvent): unknown {
  return event.event === 'completed' ? decodeResult(event.fields.result) : undefined;
}
