import { parseAutoclaim, parseStreamRead, type StreamEntryReply } from '@echo/protocol';

/** An entry as the server sends it: its XADD id, and its field list (`null` once deleted). */
export interface RawEntry {
  readonly xid: string;
  readonly pairs: readonly string[] | null;
}

function raw(entry: StreamEntryReply): RawEntry {
  return { xid: entry.id, pairs: entry.fields };
}

/**
 * Reads a one-stream `XREADGROUP` reply in either RESP shape (RESP2 `[[key, entries]]`, RESP3's map
 * flattened to `[key, entries]`). `null` (a BLOCK that timed out) reads as empty.
 */
export function readGroupEntries(reply: unknown): RawEntry[] {
  return (parseStreamRead(reply, 'XREADGROUP')[0]?.entries ?? []).map(raw);
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
  const parsed = parseAutoclaim(reply);
  return { cursor: parsed.next, entries: parsed.entries.map(raw), deleted: parsed.deleted };
}
