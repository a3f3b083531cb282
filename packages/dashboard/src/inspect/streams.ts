import { GoneError, queueKeys, type Connection } from '@echo/protocol';
import { fieldMap, numberField, textField } from './replies.js';

/** One consumer group of a stream, as `XINFO GROUPS` reports it. */
export interface GroupInfo {
  readonly name: string;
  readonly consumers: number;
  /** Entries delivered to the group and not yet acknowledged. */
  readonly pending: number;
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
  readonly firstId: string | undefined;
  readonly lastId: string | undefined;
  readonly groups: GroupInfo[];
}

function entryId(entry: unknown): string | undefined {
  return Array.isArray(entry) && entry.length > 0 ? String(entry[0]) : undefined;
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
  return {
    queue,
    name,
    length: numberField(info, 'length') ?? 0,
    firstId: entryId(info.get('first-entry')),
    lastId: entryId(info.get('last-entry')),
    groups: (groups.value as unknown[]).map((raw) => {
      const g = fieldMap(raw);
      return {
        name: textField(g, 'name') ?? '',
        consumers: numberField(g, 'consumers') ?? 0,
        pending: numberField(g, 'pending') ?? 0,
        lastDeliveredId: textField(g, 'last-delivered-id') ?? '0-0',
        entriesRead: numberField(g, 'entries-read'),
        lag: numberField(g, 'lag'),
      };
    }),
  };
}
