import { GoneError, ID_EPOCH_MS, MAX_SNOWFLAKE, encodeId, queueKeys, type Connection } from '@echo/protocol';
import { fieldMap, numberField, textField } from './replies.js';

/** One consumer group of a stream, as `XINFO GROUPS` reports it. */
export interface GroupInfo {
  readonly name: string;
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
   * Entries appended after the group's last delivered one: the consumer lag. `undefined` when the
   * server cannot tell (Redis < 7, or after deletions it cannot count across).
   */
  readonly lag: number | undefined;
}

/** A stream log with its consumer groups. */
export interface StreamInfo {
  readonly queue: string;
  readonly name: string;
  readonly length: number;
  /**
   * The oldest entry's id as the app sees it (what `stream.append` returned, what `read` gives):
   * its `id` field, the EVT id. An entry a foreign writer left without one shows its XADD id.
   */
  readonly firstId: string | undefined;
  /** The newest entry's id as the app sees it; see {@link StreamInfo.firstId}. */
  readonly lastId: string | undefined;
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
 * The id of an `XINFO STREAM` first/last entry (`[xid, [field, value, …]]`) as the app sees it: the
 * `id` field that carries the branded id (bus.md §2.1), else the XADD id.
 */
function entryId(entry: unknown): string | undefined {
  if (!Array.isArray(entry) || entry.length === 0) return undefined;
  const pairs: unknown = entry[1];
  if (Array.isArray(pairs)) {
    for (let i = 0; i + 1 < pairs.length; i += 2) if (String(pairs[i]) === 'id') return String(pairs[i + 1]);
  }
  return String(entry[0]);
}

/**
 * A stream's length and its groups (`XINFO STREAM`, `XINFO GROUPS`).
 * @throws InvalidNameError for a bad queue or stream name; GoneError when the stream does not exist.
 */
export async function streamInfo(conn: Connection, queue: string, name: string): Promise<StreamInfo> {
  const key = queueKeys(queue).stream(name);
  const [stream, groups] = await conn.pipeline([
    ['XINFO', 'STREAM', key],
    ['XINFO', 'GROUPS', key],
  ]);
  if (!stream?.ok) {
    if (stream !== undefined && /no such key/i.test(stream.error.message)) throw new GoneError();
    throw stream?.error ?? new GoneError();
  }
  if (!groups?.ok) throw groups?.error ?? new GoneError();
  const info = fieldMap(stream.value);
  const lastEntry = info.get('last-entry');
  const lastId = entryId(lastEntry);
  // Group positions are read as EVT ids only on a stream whose entries carry them.
  const echoWritten = Array.isArray(lastEntry) && lastId !== String(lastEntry[0]);
  const position = (xid: string): string => (echoWritten ? evtIdAt(xid) : xid);
  return {
    queue,
    name,
    length: numberField(info, 'length') ?? 0,
    firstId: entryId(info.get('first-entry')),
    lastId,
    groups: (groups.value as unknown[]).map((raw) => {
      const g = fieldMap(raw);
      return {
        name: textField(g, 'name') ?? '',
        consumers: numberField(g, 'consumers') ?? 0,
        pending: numberField(g, 'pending') ?? 0,
        lastDeliveredId: position(textField(g, 'last-delivered-id') ?? '0-0'),
        entriesRead: numberField(g, 'entries-read'),
        lag: numberField(g, 'lag'),
      };
    }),
  };
}
