import { ServerError, reads, type Connection } from '@echo/protocol';
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

/**
 * The lag of every consumer group of a stream (or of one, with `group`): `XINFO GROUPS`, then, per
 * group, `XINFO CONSUMERS` and an `XPENDING` summary, all in one pipeline. A stream that does not
 * exist has no groups.
 *
 * @throws InvalidNameError for a bad queue or stream name.
 */
export async function lag(conn: Connection, queue: string, name: string, group?: string): Promise<GroupLag[]> {
  const key = streamKey(queue, name);
  let groups: reads.GroupInfo[];
  try {
    groups = await reads.sendRead(conn, reads.xinfoGroups({ key }));
  } catch (error) {
    if (reads.isNoSuchKey(error)) return [];
    throw error;
  }
  const chosen = groups.filter((g) => group === undefined || g.name === group);
  if (chosen.length === 0) return [];
  // Two pipelines written together: one round trip, each typed by its read.
  const [consumersReplies, pendingReplies] = await Promise.all([
    reads.sendReads(conn, chosen.map((g) => reads.xinfoConsumers({ key, group: g.name }))),
    reads.sendReads(conn, chosen.map((g) => reads.xpendingSummary({ key, group: g.name }))),
  ]);
  const now = Date.now();
  return chosen.map((g, i) => {
    const consumers = consumersReplies[i];
    const summary = pendingReplies[i];
    if (consumers?.ok !== true) throw consumers?.error ?? new ServerError('XINFO CONSUMERS failed');
    if (summary?.ok !== true) throw summary?.error ?? new ServerError('XPENDING failed');
    const oldest = summary.value.oldest;
    return {
      group: g.name,
      undelivered: g.lag,
      pending: summary.value.count,
      oldestPendingAgeMs: oldest === undefined ? null : Math.max(0, now - Number(oldest.slice(0, oldest.indexOf('-')))),
      consumers: consumers.value.map((c) => ({ consumer: c.name, pending: c.pending, idleMs: c.idleMs })),
    };
  });
}
