/**
 * Readers for script replies that check the shape instead of casting it. A reply of another shape
 * (an older or foreign script under the same SHA, a proxy that mangles replies) throws
 * {@link ReplyShapeError}, which {@link transition} reports as a `MalformedReplyError` naming the
 * script; nothing the caller sees is read from a value of the wrong type.
 */

/** A reply part that has not the shape its reader expects; internal to the protocol's parsers. */
export class ReplyShapeError extends Error {}

function fail(what: string, expected: string): never {
  throw new ReplyShapeError(`${what} is not ${expected}`);
}

/** A list (Lua table) reply. */
export function list(value: unknown, what = 'the reply'): unknown[] {
  return Array.isArray(value) ? value : fail(what, 'a list');
}

/** A list of at least `min` items. */
export function tuple(value: unknown, min: number, what = 'the reply'): unknown[] {
  const items = list(value, what);
  return items.length >= min ? items : fail(what, `a list of ${String(min)} or more`);
}

/** An integer reply (a Lua number, or its decimal text). */
export function integer(value: unknown, what = 'the reply'): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  return fail(what, 'an integer');
}

/** A string reply (UTF-8 bytes are read as text). */
export function text(value: unknown, what = 'the reply'): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return fail(what, 'a string');
}

/** A string, or `null` for an absent one (Lua `false`/nil arrive as `null`, `false` or nothing). */
export function optText(value: unknown, what = 'the reply'): string | null {
  return value === null || value === false || value === undefined ? null : text(value, what);
}

/** A list whose every item `read` accepts. */
export function listOf<T>(value: unknown, read: (item: unknown, what: string) => T, what = 'the reply'): T[] {
  return list(value, what).map((item, i) => read(item, `${what}[${String(i)}]`));
}

/** A list of integers. */
export function integers(value: unknown, what = 'the reply'): number[] {
  return listOf(value, integer, what);
}

/** A list of strings. */
export function texts(value: unknown, what = 'the reply'): string[] {
  return listOf(value, text, what);
}

/** One of a closed set of words. */
export function word<W extends string>(value: unknown, words: readonly W[], what = 'the reply'): W {
  const s = text(value, what);
  return (words as readonly string[]).includes(s) ? (s as W) : fail(what, `one of ${words.join(', ')}`);
}

/** A finite number: a Lua number, or numeric text (a sorted-set score arrives as either). */
export function num(value: unknown, what = 'the reply'): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : fail(what, 'a number');
}
