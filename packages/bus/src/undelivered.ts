import { compareStreamIds, reads, type Connection } from '@echo/protocol/bus';

/**
 * How many entries {@link countUndelivered} reads, at most, on each side of a group's position
 * (plus one, to know there are more). Counting is the only exact answer the server gives, and it
 * ships each entry whole; this bounds what one `lag()` costs.
 */
export const UNDELIVERED_COUNT_LIMIT = 1_000;

/** What {@link countUndelivered} needs of a group: where it is, and what the server says is after it. */
export interface GroupPosition {
  /** The id last delivered to the group (`XINFO GROUPS` last-delivered-id). */
  readonly lastDeliveredId: string;
  /** The server's own lag for the group, `null` when it has none. */
  readonly lag: number | null;
}

/**
 * The answer the stream's ends give without reading an entry: 0 when the group is at or past the
 * newest entry, the whole length when it is before the oldest; `undefined` when it is in between.
 */
function fromEnds(stream: reads.StreamInfo, position: string): number | undefined {
  if (stream.lastEntry === undefined || compareStreamIds(position, stream.lastEntry.id) >= 0) return 0;
  if (stream.firstEntryId === undefined || compareStreamIds(position, stream.firstEntryId) < 0) return stream.length;
  return undefined;
}

/** How many entries a range read answered, or `undefined` when it reached `limit + 1` (there may be more). */
function counted(settled: reads.ReadSettled<readonly unknown[]> | undefined, limit: number): number | undefined {
  if (settled === undefined) return undefined;
  if (!settled.ok) throw settled.error;
  return settled.value.length <= limit ? settled.value.length : undefined;
}

/** One group while it is being counted. */
interface Tally {
  readonly position: string;
  readonly server: number | null;
  answer: number | null | undefined;
}

/**
 * The entries of the stream after each group's position: the entries a plain `XREADGROUP >` would
 * still deliver to it. The server's own counter (`XINFO GROUPS` lag) is not taken where it can be
 * checked, because it is missing or wrong in ordinary cases: missing when the group was opened or
 * reset into the middle of the stream, or an entry ahead of it was deleted; too high, and for good,
 * after a trim removed entries the group had not been delivered, and on a promoted replica, whose
 * entries-read counter stopped at its last full sync (Redis 7.0 replicates a group's reads as
 * XCLAIMs that move only its position).
 *
 * So, in order, each step only for the groups the earlier ones left open:
 * 1. the stream's ends (`stream`, from `XINFO STREAM`): 0 at or past the newest entry, the length
 *    before the oldest;
 * 2. `XRANGE key (<position> + COUNT limit+1`: exact when at most `limit` entries follow;
 * 3. `XRANGE key - <position> COUNT limit+1`: exact, as the length minus those, when at most
 *    `limit` entries are at or before the position;
 * 4. farther than `limit` from both ends, the server's count when it lies within what steps 2 and 3
 *    proved (more than `limit` after, more than `limit` before), else `null`.
 *
 * Each step is one pipeline; a group within `limit` of the newest entry costs one range read of
 * what follows it. The reads are not atomic with `stream`: entries appended or trimmed meanwhile
 * may show in the answer.
 */
export async function countUndelivered(
  conn: Connection,
  key: string,
  stream: reads.StreamInfo,
  groups: readonly GroupPosition[],
  limit: number = UNDELIVERED_COUNT_LIMIT,
): Promise<(number | null)[]> {
  const tallies: Tally[] = groups.map((g) => ({ position: g.lastDeliveredId, server: g.lag, answer: fromEnds(stream, g.lastDeliveredId) }));

  const after = tallies.filter((t) => t.answer === undefined);
  if (after.length > 0) {
    const replies = await reads.sendReads(conn, after.map((t) => reads.xrange({ key, start: `(${t.position}`, count: limit + 1 })));
    after.forEach((t, i) => (t.answer = counted(replies[i], limit)));
  }

  const before = tallies.filter((t) => t.answer === undefined);
  if (before.length > 0) {
    const replies = await reads.sendReads(conn, before.map((t) => reads.xrange({ key, end: t.position, count: limit + 1 })));
    before.forEach((t, i) => {
      const atOrBefore = counted(replies[i], limit);
      if (atOrBefore !== undefined) t.answer = Math.max(0, stream.length - atOrBefore);
      else t.answer = t.server !== null && t.server > limit && t.server < stream.length - limit ? t.server : null;
    });
  }
  return tallies.map((t) => t.answer ?? null);
}
