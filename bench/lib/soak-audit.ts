/**
 * The soak's measuring and judging pieces: memory slopes, the keyspace walk, and the count of the
 * process's live handles (timers, sockets, child processes) against a baseline.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseKey, type Connection } from '@echo/protocol/extend';

/** A point in time (ms since the run started) and a value. */
export type Point = readonly [number, number];

/**
 * A full GC, so heap samples measure what is retained rather than what is waiting to be
 * collected. Turned on at run time, so the bench needs no Node flag.
 */
export function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Least-squares slope of `points`, in units per minute. */
export function slopePerMinute(points: readonly Point[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60_000;
}

/** Redis' `used_memory`, bytes. */
export async function usedMemory(conn: Connection): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(String(await conn.command('INFO', 'memory')))?.[1]);
}

/** What the keyspace walk found. */
export interface KeyspaceAudit {
  /** Keys per `parseKey` kind. */
  readonly kinds: Record<string, number>;
  /** Keys `parseKey` does not know (at most 10 shown). */
  readonly strays: readonly string[];
  readonly strayCount: number;
  /** Job rows still present (a completed job's row is deleted). */
  readonly jobRows: number;
  /**
   * Sub-keys of jobs whose row is gone, per sub. A completed flow parent keeps `processed` and
   * `dependencies` (the protocol sets them no retention); any other is a leak.
   */
  readonly residue: Record<string, number>;
  /** `MEMORY USAGE` of the residue keys, bytes. */
  readonly residueBytes: number;
  /** Dead-letter streams holding entries. */
  readonly deadLetterEntries: number;
}

/** Walks every key with SCAN and sorts it by what the keyspace registry says it is. */
export async function auditKeyspace(conn: Connection): Promise<KeyspaceAudit> {
  const kinds: Record<string, number> = {};
  const strays: string[] = [];
  const rows = new Set<string>();
  const subKeys: { key: string; id: string; sub: string }[] = [];
  const deadStreams: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = (await conn.command('SCAN', cursor, 'COUNT', 1000)) as [string, string[]];
    for (const key of keys) {
      const parsed = parseKey(key);
      kinds[parsed.kind] = (kinds[parsed.kind] ?? 0) + 1;
      if (parsed.kind === 'unclassified') strays.push(key);
      if (parsed.kind === 'deadLetters') deadStreams.push(key);
      if (parsed.kind === 'job') {
        if (parsed.sub === null) rows.add(parsed.id);
        else subKeys.push({ key, id: parsed.id, sub: parsed.sub });
      }
    }
    cursor = next;
  } while (cursor !== '0');
  const residueKeys = subKeys.filter((s) => !rows.has(s.id));
  const residue: Record<string, number> = {};
  for (const { sub } of residueKeys) residue[sub] = (residue[sub] ?? 0) + 1;
  let residueBytes = 0;
  for (let at = 0; at < residueKeys.length; at += 500) {
    const replies = await conn.pipeline(residueKeys.slice(at, at + 500).map(({ key }) => ['MEMORY', 'USAGE', key] as const));
    for (const r of replies) if (r.ok) residueBytes += Number(r.value);
  }
  let deadLetterEntries = 0;
  for (const key of deadStreams) deadLetterEntries += Number(await conn.command('XLEN', key));
  return { kinds, strays: strays.slice(0, 10), strayCount: strays.length, jobRows: rows.size, residue, residueBytes, deadLetterEntries };
}

/** Handles alive in this process, by type (`Timeout`, `TCPSocketWrap`, `ProcessWrap`, ...). */
export function liveHandles(): Map<string, number> {
  const out = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) out.set(type, (out.get(type) ?? 0) + 1);
  return out;
}

/** Handles alive now beyond `baseline`, as `type xN` strings. */
export function handlesBeyond(baseline: ReadonlyMap<string, number>): string[] {
  const extra: string[] = [];
  for (const [type, n] of liveHandles()) {
    const over = n - (baseline.get(type) ?? 0);
    if (over > 0) extra.push(`${type} x${over}`);
  }
  return extra;
}
