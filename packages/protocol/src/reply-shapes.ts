import { MalformedReplyError } from './errors/wire.js';

/*
 * The reply-shape checks every parser shares: the plain reads and writes and the transitions' script
 * replies alike. Each reads one level of a reply and, when it has not the shape asked for, throws
 * MalformedReplyError naming the command; none casts. The arguments are always in one order:
 * `command` as the error names it (`EVALSHA <script>` for a transition), `reply` the whole reply
 * (kept for the error message), `value` the part being read (the whole reply unless given), then
 * anything the shape needs, then `what`: the part's name in the message (`the attempts is not an
 * integer`); without it the message says only what the value is not.
 */

function refuse(command: string, reply: unknown, what: string | undefined, expected: string): never {
  throw new MalformedReplyError(command, reply, what === undefined ? `not ${expected}` : `${what} is not ${expected}`);
}

/** The name of item `i` of a named list; an unnamed list's items stay unnamed. */
function itemOf(what: string | undefined, i: number): string | undefined {
  return what === undefined ? undefined : `${what}[${String(i)}]`;
}

/** A bulk string as text: ioredis answers strings, or Buffers when the caller asked for bytes. */
export function text(command: string, reply: unknown, value: unknown = reply, what?: string): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return refuse(command, reply, what, 'a string');
}

/** A bulk string or nil (`GET`, one `HMGET` slot): `undefined` for nil. */
export function optionalText(command: string, reply: unknown, value: unknown = reply, what?: string): string | undefined {
  return value === null || value === undefined ? undefined : text(command, reply, value, what);
}

/** An integer reply of any sign (RESP2 and RESP3 alike answer a number; `PTTL` answers -1 and -2). */
export function integer(command: string, reply: unknown, value: unknown = reply, what?: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return refuse(command, reply, what, 'an integer');
  return value;
}

/**
 * An integer as a number or as its decimal text: a script answers a number it computed as a number,
 * and one it read from a hash as the text stored there.
 */
export function decimal(command: string, reply: unknown, value: unknown = reply, what?: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  return refuse(command, reply, what, 'an integer');
}

/** A non-negative integer, as a number or as text (some `XINFO`-like fields arrive as text); unnamed, the message calls it `a count`. */
export function count(command: string, reply: unknown, value: unknown = reply, what = 'a count'): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0) return refuse(command, reply, what, 'a non-negative integer');
  return n;
}

/** A decimal counter stored as a string (`GET`, `HGET` of an `INCRBY`'d value): nil reads 0. */
export function counter(command: string, reply: unknown, value: unknown = reply, what?: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  const s = optionalText(command, reply, value, what);
  if (s === undefined) return 0;
  const n = Number(s);
  if (s === '' || !Number.isSafeInteger(n)) return refuse(command, reply, what, 'a decimal integer');
  return n;
}

/** A finite number: a number, or numeric text (a sorted-set score arrives as either). */
export function finiteNumber(command: string, reply: unknown, value: unknown = reply, what?: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) return refuse(command, reply, what, 'a number');
  return n;
}

/** `0` or `1`, as the commands that answer whether they found something do (`EXISTS` of one key, `HEXISTS`). */
export function flag(command: string, reply: unknown, value: unknown = reply, what?: string): boolean {
  if (value !== 0 && value !== 1) return refuse(command, reply, what, '0 or 1');
  return value === 1;
}

/** The `OK` status reply of a command that answers nothing else. */
export function ok(command: string, reply: unknown, value: unknown = reply, what?: string): void {
  if (value !== 'OK') refuse(command, reply, what, 'OK');
}

/** One of a closed set of words. */
export function word<W extends string>(command: string, reply: unknown, value: unknown, words: readonly W[], what?: string): W {
  const s = text(command, reply, value, what);
  // The list is the type's own words: a member of it is a W.
  return (words as readonly string[]).includes(s) ? (s as W) : refuse(command, reply, what, `one of ${words.join(', ')}`);
}

/** An array reply (a Lua table, for a script). */
export function list(command: string, reply: unknown, value: unknown = reply, what?: string): readonly unknown[] {
  if (!Array.isArray(value)) return refuse(command, reply, what, 'a list');
  return value;
}

/** A list of at least `min` items (a script's reply of several parts, whose later ones may be left off). */
export function tuple(command: string, reply: unknown, value: unknown, min: number, what?: string): readonly unknown[] {
  const items = list(command, reply, value, what);
  if (items.length < min) return refuse(command, reply, what, `a list of ${String(min)} or more`);
  return items;
}

/** An array of bulk strings (`LRANGE`, `ZRANGE` without scores). */
export function texts(command: string, reply: unknown, value: unknown = reply, what?: string): string[] {
  return list(command, reply, value, what).map((item, i) => text(command, reply, item, itemOf(what, i)));
}

/** A list of integers, each as a number or its decimal text ({@link decimal}). */
export function decimals(command: string, reply: unknown, value: unknown = reply, what?: string): number[] {
  return list(command, reply, value, what).map((item, i) => decimal(command, reply, item, itemOf(what, i)));
}

/** A map reply as a `Map`: a flat `[k, v, …]` list (RESP2, RESP3's default mapping), an object or a `Map`. */
export function mapOf(command: string, reply: unknown, value: unknown = reply, what?: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value instanceof Map) for (const [k, v] of value) out.set(String(k), v);
  else if (Array.isArray(value)) {
    const flat: readonly unknown[] = value;
    if (flat.length % 2 !== 0) return refuse(command, reply, what, 'a field/value map');
    for (let i = 0; i < flat.length; i += 2) out.set(String(flat[i]), flat[i + 1]);
  } else if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value)) for (const [k, v] of Object.entries(value)) out.set(k, v);
  else return refuse(command, reply, what, 'a field/value map');
  return out;
}

/** Sets one field; `__proto__` is defined as an own property, so it reads back as written. */
function put(out: Record<string, string>, field: string, value: string): void {
  if (field === '__proto__') Object.defineProperty(out, field, { value, enumerable: true, writable: true, configurable: true });
  else out[field] = value;
}

/**
 * A field/value reply (`HGETALL`) as field → value, every field and value a string: a flat list
 * under RESP2 and the client's default RESP3 mapping, a `Map` or an object under its `resp3`
 * mapping. An absent hash reads as no fields.
 */
export function fieldsOf(command: string, reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(reply)) {
    const flat: readonly unknown[] = reply;
    if (flat.length % 2 !== 0) throw new MalformedReplyError(command, reply, 'not a field/value list');
    for (let i = 0; i < flat.length; i += 2) {
      // Strings are the common case: checked inline, the row read costs no more than the untyped one did.
      const field = flat[i];
      const value = flat[i + 1];
      put(out, typeof field === 'string' ? field : text(command, reply, field), typeof value === 'string' ? value : text(command, reply, value));
    }
  } else if (reply instanceof Map) {
    for (const [k, v] of reply) put(out, text(command, reply, k), text(command, reply, v));
  } else if (typeof reply === 'object' && reply !== null && !Buffer.isBuffer(reply)) {
    for (const [k, v] of Object.entries(reply)) put(out, k, text(command, reply, v));
  } else throw new MalformedReplyError(command, reply, 'not a field/value map');
  return out;
}
