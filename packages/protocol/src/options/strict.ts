import { EchoError } from '../errors/echo-error.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { checkTimeBound, type TimeBound } from './bounds.js';
import { nearestKey } from './suggest.js';

/**
 * An options object carried a key the API does not know. Thrown before anything is sent, so a
 * typo or a peer's spelling (BullMQ's `delay`, bentocache's `skipBusNotify`) fails loudly instead of
 * being ignored. `hint` names the option that means it here, when there is one; otherwise
 * `suggestion` names the known key the refused one most likely misspells (`concurency`).
 */
export class UnknownOptionError extends InvalidArgumentError {
  /** The refused key, as the caller wrote it. */
  readonly option: string;
  /** Where it was passed, e.g. `enqueue options` or `Worker.start options`. */
  readonly where: string;
  /** What to write instead, when the key is a known name from a peer; otherwise undefined. */
  readonly hint: string | undefined;
  /** The known key this one most likely misspells, when no hint applies and one is near; otherwise undefined. */
  readonly suggestion: string | undefined;

  constructor(where: string, option: string, hint: string | undefined, known: readonly string[]) {
    const suggestion = hint === undefined ? nearestKey(option, known) : undefined;
    super(`${where}.${option}`, hint !== undefined ? `is not an option here; ${hint}` : `is not an option here${suggestion === undefined ? '' : `; did you mean ${suggestion}?`} (known: ${known.join(', ')})`);
    this.option = option;
    this.where = where;
    this.hint = hint;
    this.suggestion = suggestion;
  }
}

/** A stored value (a stream entry, a cache value) over its byte cap; nothing was written. */
export class ValueTooLargeError extends EchoError {
  /** What was refused, e.g. `stream entry` or `cache value`. */
  readonly what: string;
  /** Its encoded size in bytes. */
  readonly bytes: number;
  /** The cap in force. */
  readonly limit: number;

  constructor(what: string, bytes: number, limit: number) {
    super('value_too_large', `${what} is ${String(bytes)} bytes encoded; at most ${String(limit)} are admitted`);
    this.what = what;
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** The default byte cap on one stored value (a queue payload, a stream entry, a cache value): 1 MiB. */
export const DEFAULT_MAX_VALUE_BYTES = 1_048_576;

/**
 * The shape an options object is checked against: the keys the API reads, for foreign keys users
 * bring from peers the sentence that tells them what to write instead, and for time-like keys the
 * bound their values must stay within (see {@link TimeBound}).
 */
export interface OptionShape {
  /** The keys the entry point reads. */
  readonly known: readonly string[];
  /** For a foreign key (a peer's name), the sentence naming what to write here. */
  readonly hints?: Readonly<Record<string, string>>;
  /** For a time-like known key, what bounds its value. */
  readonly bounds?: Readonly<Record<string, TimeBound>>;
}

/** A checker built once per entry point; calling it costs one pass over the caller's own keys. */
export type OptionCheck = (options: object | undefined | null) => void;

/**
 * Builds the strict check of one entry point's options. An unknown key throws
 * {@link UnknownOptionError} (with the peer hint when the key is a known foreign name); keys whose
 * value is `undefined` are checked too, since a spread config that sets `delay: undefined` still
 * shows a misunderstanding. A non-object (other than undefined/null) is refused as an argument.
 * A bounded key's number past its bound throws `OptionRangeError`; its other checks (type,
 * lower bound) stay with the code that reads it.
 */
export function strictOptions(where: string, shape: OptionShape): OptionCheck {
  const known = new Set(shape.known);
  const hints = shape.hints ?? {};
  const bounds = Object.entries(shape.bounds ?? {});
  for (const [key] of bounds) if (!known.has(key)) throw new TypeError(`${where}: bounded key ${key} is not a known key`);
  const sorted = [...shape.known].sort();
  return (options) => {
    if (options === undefined || options === null) return;
    if (typeof options !== 'object' || Array.isArray(options)) throw new InvalidArgumentError(where, 'must be an options object');
    for (const key in options) {
      if (known.has(key)) continue;
      if (!Object.prototype.hasOwnProperty.call(options, key)) continue;
      throw new UnknownOptionError(where, key, Object.prototype.hasOwnProperty.call(hints, key) ? hints[key] : undefined, sorted);
    }
    if (bounds.length === 0) return;
    const now = Date.now();
    for (const [key, bound] of bounds) checkTimeBound(where, key, (options as Record<string, unknown>)[key], bound, now);
  };
}

/**
 * Checks the UTF-8 size of a value's encoded text (or bytes) against a cap, cheaply: a string of
 * `n` UTF-16 units is at most `3n` bytes, so most values skip the byte count.
 * @throws ValueTooLargeError over the cap.
 */
export function checkValueSize(what: string, encoded: string | Uint8Array, limit: number): void {
  if (limit === Number.POSITIVE_INFINITY) return;
  if (typeof encoded !== 'string') {
    if (encoded.byteLength > limit) throw new ValueTooLargeError(what, encoded.byteLength, limit);
    return;
  }
  if (encoded.length * 3 <= limit) return;
  const bytes = Buffer.byteLength(encoded, 'utf8');
  if (bytes > limit) throw new ValueTooLargeError(what, bytes, limit);
}

/** Checks a byte-cap option: a whole number >= 1, or Infinity for none; undefined gives the default. */
export function resolveValueLimit(option: string, limit: number | undefined, fallback = DEFAULT_MAX_VALUE_BYTES): number {
  if (limit === undefined) return fallback;
  if (limit === Number.POSITIVE_INFINITY) return limit;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidArgumentError(option, 'must be an integer >= 1, or Infinity');
  return limit;
}
