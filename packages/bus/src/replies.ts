import { ServerError } from '@echo/protocol';
import type { StreamEntry } from './fields.js';
import { readEntry } from './trace-fields.js';

/** An entry as the server sends it: its XADD id, and its field list (`null` once deleted). */
export interface RawEntry {
  readonly xid: string;
  readonly pairs: readonly unknown[] | null;
}

function unexpected(what: string, reply: unknown): ServerError {
  return new ServerError(`unexpected ${what} reply: ${JSON.stringify(reply)}`);
}

/** Reads an `XRANGE`-shaped list of `[xid, [field, value, …] | nil]`. */
export function rawEntries(reply: unknown, what = 'XRANGE'): RawEntry[] {
  if (reply === null) return [];
  if (!Array.isArray(reply)) throw unexpected(what, reply);
  return reply.map((item: unknown) => {
    if (!Array.isArray(item) || item.length < 2 || typeof item[0] !== 'string') throw unexpected(what, reply);
    const pairs: unknown = item[1];
    if (pairs !== null && !Array.isArray(pairs)) throw unexpected(what, reply);
    return { xid: item[0], pairs };
  });
}

/**
 * Reads entries that must all still exist (XRANGE never returns deleted ones); `carried` strips
 * the trace fields of a stream that carries them.
 */
export function streamEntries(reply: unknown, carried = false): StreamEntry[] {
  return rawEntries(reply).map((e) => readEntry(e.xid, e.pairs ?? [], carried));
}

/**
 * Reads a one-stream `XREADGROUP` reply. RESP2 sends `[[key, entries]]`; RESP3 sends a map, which
 * the client's legacy mapping flattens to `[key, entries]`. Both are accepted so the loop does not
 * depend on which protocol the server negotiated. `null` (a BLOCK that timed out) reads as empty.
 */
export function readGroupEntries(reply: unknown): RawEntry[] {
  if (reply === null) return [];
  if (!Array.isArray(reply)) throw unexpected('XREADGROUP', reply);
  const first: unknown = reply[0];
  if (first === undefined) return [];
  if (typeof first === 'string') return rawEntries(reply[1], 'XREADGROUP');
  if (Array.isArray(first)) return rawEntries(first[1], 'XREADGROUP');
  throw unexpected('XREADGROUP', reply);
}

/** A parsed `XAUTOCLAIM` reply. */
export interface AutoclaimReply {
  /** Where the next scan starts; `0-0` once the pending list has been walked to its end. */
  readonly cursor: string;
  readonly entries: RawEntry[];
  /** Ids that were pending but no longer exist in the stream (Redis 7 adds this third element). */
  readonly deleted: readonly string[];
}

/** Reads an `XAUTOCLAIM` reply, which has 2 elements before Redis 7 and 3 from it (bus.md §7.2). */
export function autoclaimReply(reply: unknown): AutoclaimReply {
  if (!Array.isArray(reply) || (reply.length !== 2 && reply.length !== 3) || typeof reply[0] !== 'string') {
    throw unexpected('XAUTOCLAIM', reply);
  }
  const deleted: unknown = reply[2] ?? [];
  if (!Array.isArray(deleted)) throw unexpected('XAUTOCLAIM', reply);
  return { cursor: reply[0], entries: rawEntries(reply[1], 'XAUTOCLAIM'), deleted: deleted.map(String) };
}
