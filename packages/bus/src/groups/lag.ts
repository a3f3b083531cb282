import { ServerError, reads } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { countUndelivered } from './undelivered.js';

/** How far one consumer of a group is behind. */
export interface ConsumerLag {
  /** The consumer's name. */
  readonly consumer: string;
  /** Entries delivered to it and not yet acked. */
  readonly pending: number;
  /** Ms since it last read or claimed (server clock). */
  readonly idleMs: number;
}

/** How far a consumer group is behind its stream. */
export interface GroupLag {
  /** The group's name. */
  readonly group: string;
  /**
   * Entries in the stream not yet delivered to the group: those after its last delivered one.
   * Counted, not taken from the server's group counters, which go missing or wrong after trims,
   * deletions, resets and failovers. Exact when the group is within 1000 entries of either end of
   * the stream; farther from both, the server's own count if the entries counted around the
   * group's position do not rule it out (it can be off there), else `null`.
   */
  readonly undelivered: number | null;
  /** Entries delivered and not yet acked, all consumers together. */
  readonly pending: number;
  /**
   * Age of the oldest pending entry, from its mint instant (its XADD id's ms) to the host's now;
   * `null` when nothing is pending.
   */
  readonly oldestPendingAgeMs: number | null;
  /** Each consumer the group has, with what it holds. */
  readonly consumers: readonly ConsumerLag[];
}

/** A read's value; `undefined` when the server has no such stream (`no such key`); its error otherwise. */
function presentOr<T>(settled: reads.ReadSettled<T>): T | undefined {
  if (settled.ok) return settled.value;
  if (reads.isNoSuchKey(settled.error)) return undefined;
  throw settled.error;
}

/**
 * The lag of every consumer group of a stream (or of one, with `group`): `XINFO GROUPS` with
 * `XINFO STREAM`, then, per group, `XINFO CONSUMERS`, an `XPENDING` summary and, for a group
 * between the stream's ends, a bounded `XRANGE` count of what follows it (see `undelivered`), in
 * one round trip; a group more than 1000 entries from the newest costs one more. A stream that
 * does not exist has no groups.
 *
 */
export async function lag(ctx: StreamContext, group?: string): Promise<GroupLag[]> {
  const { conn, key } = ctx;
  const [groupsReply, streamReply] = await reads.sendReads(conn, [reads.xinfoGroups({ key }), reads.xinfoStream({ key })]);
  const groups = presentOr(groupsReply);
  const stream = presentOr(streamReply);
  if (groups === undefined || stream === undefined) return [];
  const chosen = groups.filter((g) => group === undefined || g.name === group);
  if (chosen.length === 0) return [];
  // Written together: one round trip, each typed by its read.
  const [consumersReplies, pendingReplies, undelivered] = await Promise.all([
    reads.sendReads(conn, chosen.map((g) => reads.xinfoConsumers({ key, group: g.name }))),
    reads.sendReads(conn, chosen.map((g) => reads.xpendingSummary({ key, group: g.name }))),
    countUndelivered(conn, key, stream, chosen),
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
      undelivered: undelivered[i] ?? null,
      pending: summary.value.count,
      oldestPendingAgeMs: oldest === undefined ? null : Math.max(0, now - Number(oldest.slice(0, oldest.indexOf('-')))),
      consumers: consumers.value.map((c) => ({ consumer: c.name, pending: c.pending, idleMs: c.idleMs })),
    };
  });
}
