import { MalformedReplyError } from '../errors/wire.js';
import { isStreamId } from './stream-ids.js';

/**
 * One stream entry as the server sent it: its id and its flat `field value …` list, in stream order.
 * `fields` is `null` for an entry deleted while it was pending (`XREADGROUP` of a consumer's history
 * and `XCLAIM` answer such ids without fields).
 */
export interface StreamEntryReply {
  /** The entry id, `<ms>-<seq>`. */
  readonly id: string;
  /** `field value …` as written; `null` for an entry deleted while pending. */
  readonly fields: readonly string[] | null;
}

/** The entries one stream answered in an `XREAD`/`XREADGROUP` reply. */
export interface StreamReadReply {
  /** The stream key. */
  readonly key: string;
  /** Its entries after the id asked for. */
  readonly entries: readonly StreamEntryReply[];
}

/** A parsed `XAUTOCLAIM` reply. */
export interface AutoclaimReply {
  /** Where the next scan starts; `0-0` once the pending list has been walked to its end. */
  readonly next: string;
  /** The entries claimed (a deleted one has `fields: null` before Redis 7). */
  readonly entries: readonly StreamEntryReply[];
  /** Ids that were pending but no longer exist in the stream (the third element, from Redis 7). */
  readonly deleted: readonly string[];
}

/** A bulk string as text: ioredis answers strings, or Buffers when the caller asked for bytes. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

function fieldList(command: string, reply: unknown, value: unknown): readonly string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length % 2 !== 0) throw new MalformedReplyError(command, reply, 'an entry\'s fields are not a field/value list');
  const list: readonly unknown[] = value;
  // The common case, all strings, keeps the client's array: no copy per entry on the consume path.
  let allStrings = true;
  for (const item of list) {
    if (typeof item === 'string') continue;
    if (!Buffer.isBuffer(item)) throw new MalformedReplyError(command, reply, 'a field or value is not a string');
    allStrings = false;
  }
  return allStrings ? (list as readonly string[]) : list.map((item) => text(item) ?? '');
}

function entryOf(command: string, reply: unknown, item: unknown): StreamEntryReply {
  if (!Array.isArray(item) || item.length !== 2) throw new MalformedReplyError(command, reply, 'an entry is not [id, fields]');
  const id = text(item[0]);
  if (!isStreamId(id)) throw new MalformedReplyError(command, reply, 'an entry id is not <ms>-<seq>');
  return { id, fields: fieldList(command, reply, item[1]) };
}

function entryList(command: string, reply: unknown, list: unknown): StreamEntryReply[] {
  if (!Array.isArray(list)) throw new MalformedReplyError(command, reply, 'the entries are not a list');
  return list.map((item: unknown) => entryOf(command, reply, item));
}

/**
 * Reads an `XRANGE`/`XREVRANGE` reply: a list of `[id, [field, value, …]]`, the same in RESP2 and
 * RESP3. Checks every level of the shape.
 *
 * @throws MalformedReplyError when the reply is not that list.
 */
export function parseStreamEntries(reply: unknown, command = 'XRANGE'): StreamEntryReply[] {
  return entryList(command, reply, reply);
}

/**
 * Reads an `XREAD`/`XREADGROUP` reply in any shape the client may hand over: `null` (a `BLOCK` that
 * timed out) reads as no streams; RESP2 sends `[[key, entries], …]`; RESP3 sends a map, which the
 * client's default mapping flattens to `[key, entries, key, entries, …]` and its `resp3` mapping
 * makes an object (or a `Map`). Streams come back in reply order.
 *
 * @throws MalformedReplyError when the reply has none of those shapes.
 */
export function parseStreamRead(reply: unknown, command = 'XREAD'): StreamReadReply[] {
  if (reply === null) return [];
  const pairs: [unknown, unknown][] = [];
  if (reply instanceof Map) for (const [key, value] of reply) pairs.push([key, value]);
  else if (Array.isArray(reply)) {
    const list: readonly unknown[] = reply;
    if (list.length > 0 && Array.isArray(list[0])) {
      for (const item of list) {
        if (!Array.isArray(item) || item.length !== 2) throw new MalformedReplyError(command, reply, 'a stream is not [key, entries]');
        pairs.push([item[0], item[1]]);
      }
    } else {
      if (list.length % 2 !== 0) throw new MalformedReplyError(command, reply, 'a stream map has an odd length');
      for (let i = 0; i < list.length; i += 2) pairs.push([list[i], list[i + 1]]);
    }
  } else if (typeof reply === 'object' && !Buffer.isBuffer(reply)) pairs.push(...Object.entries(reply));
  else throw new MalformedReplyError(command, reply);
  return pairs.map(([rawKey, entries]) => {
    const key = text(rawKey);
    if (key === undefined) throw new MalformedReplyError(command, reply, 'a stream key is not a string');
    return { key, entries: entryList(command, reply, entries) };
  });
}

/**
 * The entries of a one-stream `XREAD`/`XREADGROUP` reply (any shape {@link parseStreamRead} reads);
 * none when the read timed out.
 *
 * @throws MalformedReplyError for a malformed reply, or one that answers another stream than `key`.
 */
export function parseOneStreamRead(reply: unknown, key: string, command = 'XREAD'): readonly StreamEntryReply[] {
  const streams = parseStreamRead(reply, command);
  if (streams.length === 0) return [];
  const only = streams[0];
  if (streams.length !== 1 || only?.key !== key) throw new MalformedReplyError(command, reply, `expected stream ${key} only`);
  return only.entries;
}

/**
 * Reads an `XAUTOCLAIM` reply: `[next, entries]` before Redis 7, `[next, entries, deleted]` from it.
 *
 * @throws MalformedReplyError for any other shape.
 */
export function parseAutoclaim(reply: unknown): AutoclaimReply {
  if (!Array.isArray(reply) || (reply.length !== 2 && reply.length !== 3)) throw new MalformedReplyError('XAUTOCLAIM', reply, 'not [next, entries, deleted?]');
  const list: readonly unknown[] = reply;
  const next = text(list[0]);
  if (!isStreamId(next)) throw new MalformedReplyError('XAUTOCLAIM', reply, 'the next cursor is not <ms>-<seq>');
  const deleted: unknown = list[2] ?? [];
  if (!Array.isArray(deleted)) throw new MalformedReplyError('XAUTOCLAIM', reply, 'the deleted ids are not a list');
  return {
    next,
    entries: entryList('XAUTOCLAIM', reply, list[1]),
    deleted: deleted.map((id: unknown) => {
      const s = text(id);
      if (!isStreamId(s)) throw new MalformedReplyError('XAUTOCLAIM', reply, 'a deleted id is not <ms>-<seq>');
      return s;
    }),
  };
}

/**
 * An entry's fields as an object, for records whose writer puts each field once. Own properties
 * only (`Object.fromEntries`), so a field named `__proto__` reads back as written; a repeated field
 * keeps its last value, as `HGETALL`-style readers do.
 */
export function entryFields(fields: readonly string[] | null): Readonly<Record<string, string>> {
  if (fields === null) return {};
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) pairs.push([fields[i] as string, fields[i + 1] as string]);
  return Object.fromEntries(pairs);
}
