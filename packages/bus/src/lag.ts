import type { Connection } from '@echo/protocol';
import { ServerError } from '@echo/protocol';
import { streamKey } from './keys.js';

/** How far one consumer of a group is behind. */
export interface ConsumerLag {
  readonly consumer: string;
  /** Entries delivered to it and not yet acked. */
  readonly pending: number;
  /** Ms since it last read or claimed (server clock). */
  readonly idleMs: number;
}

/** How far a consumer group is behind its stream. */
export interface GroupLag {
  readonly group: string;
  /**
   * Entries in the stream not yet delivered to the group. `null` when the server cannot tell
   * (entries were deleted or trimmed between the group's position and the top).
   */
  readonly undelivered: number | null;
  /** Entries delivered and not yet acked, all consumers together. */
  readonly pending: number;
  /**
   * Age of the oldest pending entry, from its mint instant (its XADD id's ms) to the host's now;
   * `null` when nothing is pending.
   */
  readonly oldestPendingAgeMs: number | null;
  readonly consumers: readonly ConsumerLag[];
}

/** A reply the client may give as a flat `[k, v, …]` list (RESP2, or RESP3 flattened) or as a Map. */
function record(reply: unknown): Map<string, unknown> {
  if (reply instanceof Map) return new Map([...(reply as Map<unknown, unknown>)].map(([k, v]) => [String(k), v]));
  if (!Array.isArray(reply)) throw new ServerError(`unexpected XINFO reply: ${JSON.stringify(reply)}`);
  const out = new Map<string, unknown>();
  for (let i = 0; i + 1 < reply.length; i += 2) out.set(String(reply[i]), reply[i + 1]);
  return out;
}

function list(reply: unknown): unknown[] {
  if (!Array.isArray(reply)) throw new ServerError(`unexpected XINFO reply: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * The lag of every consumer group of a stream (or of one, with `group`): `XINFO GROUPS`, then, per
 * group, `XINFO CONSUMERS` and an `XPENDING` summary, all in one pipeline. A stream that does not
 * exist has no groups.
 *
 * @throws InvalidNameError for a bad queue or stream name.
 */
export async function lag(conn: Connection, queue: string, name: string, group?: string): Promise<GroupLag[]> {
  const key = streamKey(queue, name);
  let groups: Map<string, unknown>[];
  try {
    groups = list(await conn.command('XINFO', 'GROUPS', key)).map(record);
  } catch (error) {
    if (error instanceof ServerError && /no such key/i.test(error.message)) return [];
    throw error;
  }
  const chosen = groups.filter((g) => group === undefined || String(g.get('name')) === group);
  if (chosen.length === 0) return [];
  const replies = await conn.pipeline(
    chosen.flatMap((g) => {
      const n = String(g.get('name'));
      return [
        ['XINFO', 'CONSUMERS', key, n],
        ['XPENDING', key, n],
      ] as const;
    }),
  );
  const now = Date.now();
  return chosen.map((g, i) => {
    const consumersReply = replies[2 * i];
    const pendingReply = replies[2 * i + 1];
    if (consumersReply?.ok !== true) throw consumersReply?.error ?? new ServerError('XINFO CONSUMERS failed');
    if (pendingReply?.ok !== true) throw pendingReply?.error ?? new ServerError('XPENDING failed');
    const summary = list(pendingReply.value);
    const oldest = summary[1];
    const lagValue = g.get('lag');
    return {
      group: String(g.get('name')),
      undelivered: lagValue === null || lagValue === undefined ? null : Number(lagValue),
      pending: Number(summary[0]),
      oldestPendingAgeMs: typeof oldest === 'string' ? Math.max(0, now - Number(oldest.slice(0, oldest.indexOf('-')))) : null,
      consumers: list(consumersReply.value).map((c) => {
        const m = record(c);
        return { consumer: String(m.get('name')), pending: Number(m.get('pending')), idleMs: Number(m.get('idle')) };
      }),
    };
  });
}
