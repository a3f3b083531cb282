import { InvalidArgumentError } from '../errors/validation.js';
import { MalformedReplyError } from '../errors/wire.js';

/*
 * The checks every reply parser shares: each reads one level of a reply and throws
 * MalformedReplyError, naming the command, when it has not the shape asked for. `reply` is the whole
 * reply, kept for the error message; `value` is the part being read.
 */

/** A map reply as a `Map`: a flat `[k, v, …]` list (RESP2, RESP3's default mapping), an object or a `Map`. */
export function mapOf(command: string, reply: unknown, value: unknown = reply): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value instanceof Map) for (const [k, v] of value) out.set(String(k), v);
  else if (Array.isArray(value)) {
    const list: readonly unknown[] = value;
    if (list.length % 2 !== 0) throw new MalformedReplyError(command, reply, 'not a field/value map');
    for (let i = 0; i < list.length; i += 2) out.set(String(list[i]), list[i + 1]);
  } else if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value)) for (const [k, v] of Object.entries(value)) out.set(k, v);
  else throw new MalformedReplyError(command, reply, 'not a field/value map');
  return out;
}

/** A list reply. */
export function listOf(command: string, reply: unknown, value: unknown = reply): readonly unknown[] {
  if (!Array.isArray(value)) throw new MalformedReplyError(command, reply, 'not a list');
  return value;
}

/** A non-negative integer (RESP integers arrive as numbers; some INFO-like fields as text). */
export function countOf(command: string, reply: unknown, value: unknown = reply): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new MalformedReplyError(command, reply, 'a count is not a non-negative integer');
  return n;
}

/** An integer reply of any sign (`PTTL` answers -1 and -2). */
export function integerOf(command: string, reply: unknown, value: unknown = reply): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new MalformedReplyError(command, reply, 'not an integer');
  return value;
}

/** A bulk string as text: ioredis answers strings, or Buffers when the caller asked for bytes. */
export function textOf(command: string, reply: unknown, value: unknown = reply): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  throw new MalformedReplyError(command, reply, 'not a string');
}

/** The `OK` status reply of a command that answers nothing else. */
export function okOf(command: string, reply: unknown): void {
  if (reply !== 'OK') throw new MalformedReplyError(command, reply, 'not OK');
}

/** `0` or `1`, as the commands that answer whether they found something do. */
export function flagOf(command: string, reply: unknown): boolean {
  if (reply !== 0 && reply !== 1) throw new MalformedReplyError(command, reply, 'not 0 or 1');
  return reply === 1;
}

/**
 * A hash reply (`HGETALL`) as field → value: a flat list, an object or a `Map`, every field and
 * value a string. Own properties only, so a field named `__proto__` reads back as written.
 */
export function hashOf(command: string, reply: unknown): Record<string, string> {
  const pairs: [string, string][] = [];
  for (const [k, v] of mapOf(command, reply)) pairs.push([k, textOf(command, reply, v)]);
  return Object.fromEntries(pairs);
}

/** A non-empty string argument, checked before anything is sent. */
export function textArg(name: string, value: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(name, 'must be a non-empty string');
  return value;
}

/** A positive integer argument, as the decimal text the server reads. */
export function positiveArg(name: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(name, `must be a positive integer, got ${String(value)}`);
  return String(value);
}
