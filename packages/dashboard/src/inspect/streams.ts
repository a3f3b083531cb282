import { lag as groupLag } from '@echo/bus';
import { GoneError, ID_EPOCH_MS, MAX_SNOWFLAKE, encodeId, queueKeys, reads, type Connection, type StreamEntryReply } from '@echo/protocol/extend';

/** One consumer group of a stream, as `XINFO GROUPS` reports it (its lag counted, see {@link GroupInfo.lag}). */
export interface GroupInfo {
  /** The group's name. */
  readonly name: string;
  /** How many consumers the group has. */
  readonly consumers: number;
  /** Entries delivered to the group and not yet acknowledged. */
  readonly pending: number;
  /**
   * The last entry delivered to the group, by its id as the app sees it (the EVT id) on a stream
   * Echo writes; the raw XADD id otherwise (and `0-0` before the first delivery).
   */
  readonly lastDeliveredId: string;
  /** Entries the group has read; `undefined` when the server cannot tell (Redis < 7). */
  readonly entriesRead: number | undefined;
  /**
   * Entries appended after the group's last delivered one: the consumer lag, counted as the bus's
   * `lag()` counts it (the server's own counter goes missing or stale after trims, deletions,
   * resets and failovers). `undefined` when it cannot be told: a group more than 1000 entries from
   * both ends of the stream whose server count is ruled out.
   */
  readonly lag: number | undefined;
}

/** A stream log with its consumer groups. */
export interface StreamInfo {
  /** The queue (hash tag) the stream lives under. */
  readonly queue: string;
  /** The stream's name within its queue. */
  readonly name: string;
  /** Entries in the stream (`XLEN`). */
  readonly length: number;
  /**
   * The oldest entry's id as the app sees it (what `stream.append` returned, what `read` gives):
   * its `id` field, the EVT id. An entry a foreign writer left without one shows its XADD id.
   */
  readonly firstId: string | undefined;
  /** The newest entry's id as the app sees it; see {@link StreamInfo.firstId}. */
  readonly lastId: string | undefined;
  /** Its consumer groups, in the server's order. */
  readonly groups: GroupInfo[];
}

const EPOCH = BigInt(ID_EPOCH_MS);
const TAIL_LIMIT = 1n << 22n;
const XADD_ID = /^(\d+)-(\d+)$/;

/**
 * The EVT id an Echo-written entry at XADD id `xid` carries: bus.md §3 makes the XADD id
 * `<unix ms>-<node << 12 | seq>` of the EVT id's snowflake, so the map is exact both ways. Anything
 * that is not such a position (`0-0`, a foreign id) stays as it is.
 */
function evtIdAt(xid: string): string {
  const match = XADD_ID.exec(xid);
  if (match === null) return xid;
  const ms = BigInt(match[1] ?? '0');
  const tail = BigInt(match[2] ?? '0');
  if (ms < EPOCH || tail >= TAIL_LIMIT) return xid;
  const snowflake = ((ms - EPOCH) << 22n) | tail;
  return snowflake > MAX_SNOWFLAKE ? xid : encodeId('EVT', snowflake);
}

/**
 * The id of an `XINFO STREAM` first/last entry as the app sees it: the `id` field that carries the
 * branded id (bus.md §2.1), else the XADD id.
 */
function entryId(entry: StreamEntryReply | undefined): string | undefined {
  if (entry === undefined) return undefined;
  const fields = entry.fields ?? [];
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'id') return fields[i + 1];
  return entry.id;
}

/**
 * A stream's length and its groups (`XINFO STREAM`, `XINFO GROUPS`).
 * @throws InvalidNameError for a bad queue or stream name; GoneError when the stream does not exist.
 */
export async function streamInfo(conn: Connection, queue: string, name: string): Promise<StreamInfo> {
  const key = queueKeys(queue).stream(name);
  const [[stream, groups], lags] = await Promise.all([
    reads.sendReads(conn, [reads.xinfoStream({ key }), reads.xinfoGroups({ key })]),
    groupLag(conn, queue, name),
  ]);
  if (!stream.ok) throw reads.isNoSuchKey(stream.error) ? new GoneError() : stream.error;
  if (!groups.ok) throw groups.error;
  const undelivered = new Map(lags.map((l) => [l.group, l.undelivered]));
  const info = stream.value;
  const lastId = entryId(info.lastEntry);
  // Group positions are read as EVT ids only on a stream whose entries carry them.
  const echoWritten = info.lastEntry !== undefined && lastId !== info.lastEntry.id;
  const position = (xid: string): string => (echoWritten ? evtIdAt(xid) : xid);
  return {
    queue,
    name,
    length: info.length,
    firstId: entryId(info.firstEntry),
    lastId,
    groups: groups.value.map((g) => ({
      name: g.name,
      consumers: g.consumers,
      pending: g.pending,
      lastDeliveredId: position(g.lastDeliveredId),
      entriesRead: g.entriesRead ?? undefined,
      lag: undelivered.get(g.name) ?? undefined,
    })),
  };
}
