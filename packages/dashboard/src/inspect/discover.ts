import { parseKey, reads, type Connection, type MasterNode } from '@echo/protocol/extend';

/** One stream log found on the server, `emq:{queue}:stream:name`. */
export interface StreamRef {
  readonly queue: string;
  readonly name: string;
}

/** One cache table found on the server by its L2 rows, `ecc:{table}:<id>`. */
export interface CacheTableRef {
  readonly table: string;
  /** L2 rows of the table when scanned. */
  readonly rows: number;
}

/**
 * Every key on one master matching `pattern`, optionally of one `type` (SCAN, never KEYS, so a large
 * keyspace is walked in steps without blocking the server).
 */
async function scanNode(node: Pick<MasterNode, 'command'>, pattern: string, type?: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const step = await reads.sendRead(node, reads.scan(type === undefined ? { cursor, match: pattern, count: 1000 } : { cursor, match: pattern, count: 1000, type }));
    keys.push(...step.keys);
    cursor = step.cursor;
  } while (cursor !== '0');
  return keys;
}

/** Every key matching `pattern` on every master: a cluster holds each queue's keys on one node. */
export async function scanKeys(conn: Connection, pattern: string, type?: string): Promise<string[]> {
  const perNode = await Promise.all(conn.masters().map((node) => scanNode(node, pattern, type)));
  return perNode.flat();
}

/**
 * The queues on the server, sorted by name. A queue is known by its fixed keys: the four job sets
 * (ZSETs), `meta` and the metrics counters (HASHes). The scans filter by type, so job rows (HASHes
 * under `job:`) and logs never leave the server; every candidate is checked with `parseKey`.
 */
export async function discoverQueues(conn: Connection): Promise<string[]> {
  const [sets, hashes] = await Promise.all([scanKeys(conn, 'emq:{*}:*', 'zset'), scanKeys(conn, 'emq:{*}:m*', 'hash')]);
  const names = new Set<string>();
  for (const key of [...sets, ...hashes]) {
    const parsed = parseKey(key);
    if (parsed.kind === 'fixed' || parsed.kind === 'metrics') names.add(parsed.queue);
  }
  return [...names].sort();
}

/** The stream logs on the server, sorted by queue then name. */
export async function discoverStreams(conn: Connection): Promise<StreamRef[]> {
  const keys = await scanKeys(conn, 'emq:{*}:stream:*', 'stream');
  const refs: StreamRef[] = [];
  for (const key of keys) {
    const parsed = parseKey(key);
    if (parsed.kind === 'stream' && !parsed.archived) refs.push({ queue: parsed.queue, name: parsed.name });
  }
  return refs.sort((a, b) => a.queue.localeCompare(b.queue) || a.name.localeCompare(b.name));
}

/** The cache tables that have L2 rows on the server, with their row counts, sorted by name. */
export async function discoverCacheTables(conn: Connection): Promise<CacheTableRef[]> {
  const rows = new Map<string, number>();
  for (const key of await scanKeys(conn, 'ecc:{*}:*')) {
    const parsed = parseKey(key);
    if (parsed.kind === 'cache') rows.set(parsed.table, (rows.get(parsed.table) ?? 0) + 1);
  }
  return [...rows].map(([table, count]) => ({ table, rows: count })).sort((a, b) => a.table.localeCompare(b.table));
}
