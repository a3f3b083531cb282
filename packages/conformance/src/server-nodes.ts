/**
 * What only the server itself can answer (flushing scripts, scanning keys, listing and killing
 * clients), asked of every master directly: a cluster caches scripts and holds keys per node. The
 * connector's `masters()` sends each command to one node through its gate and error mapping.
 */
import type { Connection, MasterNode } from '@echo/protocol/extend';

/** One master, answering commands itself (`CLIENT LIST`, `PUBSUB NUMSUB`, `SCRIPT FLUSH`). */
export type ServerNode = Pick<MasterNode, 'command'>;

/** Every master behind `conn`, each answering commands itself. */
export function mastersOf(conn: Connection): readonly ServerNode[] {
  return conn.masters();
}

/** Every key matching `pattern` on one node (SCAN, never KEYS). */
export async function scanNode(node: ServerNode, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await node.command('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}
