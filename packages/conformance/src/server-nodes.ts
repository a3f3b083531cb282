/**
 * What only the server itself can answer (flushing scripts, scanning keys, listing and killing
 * clients), asked of every master directly: a cluster caches scripts and holds keys per node. This
 * is the one place the suite reaches past the connector, through its underlying client.
 */
import { Cluster } from 'ioredis';
import type { Arg, Connection } from '@echo/protocol';

/** One master, answering commands itself (`CLIENT LIST`, `PUBSUB NUMSUB`, `SCRIPT FLUSH`). */
export interface ServerNode {
  command(name: string, ...args: Arg[]): Promise<unknown>;
}

/** Every master behind `conn`, each answering commands itself. */
export function mastersOf(conn: Connection): ServerNode[] {
  const client = conn.client;
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  return nodes.map((node) => ({ command: (name: string, ...args: Arg[]) => node.call(name, ...args) }));
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
