import { MalformedReplyError } from '../../errors/wire.js';
import type { JobId } from '../../ids/branded.js';
import { parseId } from '../../ids/guards.js';

/**
 * Reply-shape checks shared by the queue's reads. Each takes the command name and the whole reply,
 * so a refusal names what was read; none casts: a value of the wrong shape is a MalformedReplyError.
 */

/** A bulk string as text: ioredis answers strings, or Buffers when the caller asked for bytes. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

/** A bulk string reply. */
export function text(command: string, reply: unknown, value: unknown = reply): string {
  const s = textOf(value);
  if (s === undefined) throw new MalformedReplyError(command, reply, 'not a string');
  return s;
}

/** A bulk string or nil (`GET`, one `HMGET` slot): `undefined` for nil. */
export function optionalText(command: string, reply: unknown, value: unknown = reply): string | undefined {
  return value === null || value === undefined ? undefined : text(command, reply, value);
}

/** An integer reply (RESP2 and RESP3 alike answer a number). */
export function integer(command: string, reply: unknown): number {
  if (typeof reply !== 'number' || !Number.isSafeInteger(reply)) throw new MalformedReplyError(command, reply, 'not an integer');
  return reply;
}

/** A 0/1 integer reply as a boolean (`EXISTS` of one key, `HEXISTS`). */
export function flag(command: string, reply: unknown): boolean {
  const n = integer(command, reply);
  if (n !== 0 && n !== 1) throw new MalformedReplyError(command, reply, 'not 0 or 1');
  return n === 1;
}

/** A decimal counter stored as a string (`GET`, `HGET` of an `INCRBY`'d value): nil reads 0. */
export function counter(command: string, reply: unknown, value: unknown = reply): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  const s = optionalText(command, reply, value);
  if (s === undefined) return 0;
  const n = Number(s);
  if (s === '' || !Number.isSafeInteger(n)) throw new MalformedReplyError(command, reply, 'not a decimal integer');
  return n;
}

/** An array reply. */
export function list(command: string, reply: unknown): readonly unknown[] {
  if (!Array.isArray(reply)) throw new MalformedReplyError(command, reply, 'not a list');
  return reply;
}

/** An array of bulk strings (`LRANGE`, `ZRANGE` without scores). */
export function texts(command: string, reply: unknown): string[] {
  return list(command, reply).map((item) => text(command, reply, item));
}

/** Sets one field; `__proto__` is defined as an own property, so it reads back as written. */
function put(out: Record<string, string>, field: string, value: string): void {
  if (field === '__proto__') Object.defineProperty(out, field, { value, enumerable: true, writable: true, configurable: true });
  else out[field] = value;
}

/**
 * A field/value reply (`HGETALL`): a flat list under RESP2 and the client's default RESP3 mapping,
 * a `Map` or an object under its `resp3` mapping. An absent hash reads as no fields.
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

/** A score: RESP2 sends it as a string, RESP3 as a double. */
function score(command: string, reply: unknown, value: unknown): number {
  const n = typeof value === 'number' ? value : Number(text(command, reply, value));
  if (Number.isNaN(n)) throw new MalformedReplyError(command, reply, 'a score is not a number');
  return n;
}

/**
 * A `WITHSCORES` reply: `[member, score, …]` under RESP2, `[[member, score], …]` under RESP3. Pairs
 * in reply order.
 */
export function scored(command: string, reply: unknown): [string, number][] {
  const items = list(command, reply);
  if (items.length > 0 && Array.isArray(items[0])) {
    return items.map((pair) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new MalformedReplyError(command, reply, 'a member is not [member, score]');
      const p: readonly unknown[] = pair;
      return [text(command, reply, p[0]), score(command, reply, p[1])];
    });
  }
  if (items.length % 2 !== 0) throw new MalformedReplyError(command, reply, 'not a member/score list');
  const out: [string, number][] = [];
  for (let i = 0; i < items.length; i += 2) out.push([text(command, reply, items[i]), score(command, reply, items[i + 1])]);
  return out;
}

/** A member as a job id, `undefined` when it is not one (a member no Echo writer put there). */
export function jobIdOf(member: string): JobId | undefined {
  try {
    return parseId(member, 'JOB');
  } catch {
    return undefined;
  }
}

/**
 * The job ids of a set read, in reply order. A member that is not a job id names no row, so it is
 * skipped rather than failing the whole read.
 */
export function jobIds(command: string, reply: unknown): JobId[] {
  const out: JobId[] = [];
  for (const member of texts(command, reply)) {
    const id = jobIdOf(member);
    if (id !== undefined) out.push(id);
  }
  return out;
}
