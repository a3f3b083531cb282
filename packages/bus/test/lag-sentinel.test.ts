/**
 * `lag()` after a Sentinel failover. Redis 7.0 replicates a group's reads as XCLAIMs that move the
 * group's last-delivered id on the replica but not its entries-read counter (redis/redis#12898
 * changed that later), so the counter a replica got at its last full sync goes stale; promoted, it
 * answers a lag too high by every entry read since, and keeps answering it after the group has
 * caught up. `lag()` must count what is there.
 */
import { ConnectionLostError, Connection } from '@echo/protocol/bus';
import { startSentinel, waitFor, type SentinelGroup } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupLag, type Stream } from '../src/index.js';
import { until } from './helpers.js';

let group: SentinelGroup;
let conn: Connection;

beforeAll(async () => {
  // Loading a full sync without an RDB file on disk leaves a restarted replica nothing to resume
  // from, so its restart is a full resync, as when a failed primary rejoins.
  group = await startSentinel({ downAfterMs: 1_000, args: ['--repl-diskless-load', 'on-empty-db'] });
  conn = await Connection.connect({ sentinel: { sentinels: group.sentinelSeeds, name: group.masterName } });
}, 60_000);

afterAll(async () => {
  await conn.close({ immediate: true });
  await group.stop();
});

const records = (from: number, n: number): { n: string }[] => Array.from({ length: n }, (_, i) => ({ n: String(from + i) }));

/** Runs a consumer of `g` until it has handled `count` entries, then closes it (its acks settled). */
async function consumeAll(stream: Stream, count: number): Promise<string[]> {
  const seen: string[] = [];
  const consumer = await stream.consume('g', (e) => void seen.push(e.payload.n ?? ''), { start: 'head', consumer: 'c1', beatMs: 50 });
  try {
    await until(() => seen.length >= count, 45_000);
  } finally {
    await consumer.close();
  }
  return seen;
}

/** Resolves once every write so far is on the replica too. */
async function replicated(): Promise<void> {
  await until(async () => Number(await conn.command('WAIT', '1', '200')) === 1, 45_000);
}

/** The group's lag, once the connection answers on whichever node is primary now. */
async function lagOf(stream: Stream): Promise<GroupLag | undefined> {
  let answer: GroupLag[] | undefined;
  await waitFor(
    async () => {
      try {
        answer = await stream.lag('g');
        return true;
      } catch (error) {
        if (error instanceof ConnectionLostError) return false;
        throw error;
      }
    },
    { timeoutMs: 45_000 },
  );
  return answer?.[0];
}

describe('lag() across a Sentinel failover', () => {
  it('answers the entries not yet delivered on the promoted replica, and 0 once they are consumed', async () => {
    const stream = (await Bus.open({ connection: conn })).stream('lag-failover');
    await stream.appendBatch(records(1, 3));
    expect(await consumeAll(stream, 3)).toEqual(['1', '2', '3']);
    // A full resync (here: the replica restarted) hands the replica the group's counter as it is
    // now (3); from here on it only sees the group's position move.
    await group.replicas[0]!.restart();
    await replicated();

    await stream.appendBatch(records(4, 4));
    expect(await consumeAll(stream, 4)).toEqual(['4', '5', '6', '7']);
    await stream.appendBatch(records(8, 5));
    await replicated();
    expect(await lagOf(stream)).toMatchObject({ undelivered: 5, pending: 0 });

    const failover = await group.failover({ timeoutMs: 20_000 });
    expect(failover.promoted).toBe(group.replicas[0]);
    // The promoted replica's own lag says 9 here (12 added, 3 read).
    expect(await lagOf(stream)).toMatchObject({ undelivered: 5, pending: 0 });

    expect(await consumeAll(stream, 5)).toEqual(['8', '9', '10', '11', '12']);
    // And 4 here, for good: its counter now moves with the reads, 4 behind.
    expect(await lagOf(stream)).toMatchObject({ undelivered: 0, pending: 0 });
  }, 60_000);
});
