/**
 * The harness members of a target that only the server itself can answer (flushing scripts,
 * scanning keys, listing clients), built from a connection that lists its masters (or a raw ioredis
 * client). They go to each master directly: a cluster caches scripts and holds keys per node.
 */
import { Cluster, type Redis } from 'ioredis';
import type { ConformanceTarget, NodeLike, WireArg } from './types.js';

/** A connection that answers its masters itself, as the protocol's `Connection.masters()` does. */
export interface MastersSource {
  masters(): readonly NodeLike[];
}

/** Every master of `client`, each answering commands itself. */
export function mastersOf(client: Redis | Cluster | MastersSource): readonly NodeLike[] {
  if ('masters' in client) return client.masters();
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  return nodes.map((node) => ({ command: (name: string, ...args: WireArg[]) => node.call(name, ...args) }));
}

async function scanNode(node: NodeLike, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await node.command('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** `flushScripts`, `scanKeys` and `nodes` for a target whose connection runs on `client`. */
export function serverHarness(client: Redis | Cluster | MastersSource): Pick<ConformanceTarget, 'flushScripts' | 'scanKeys'> & Required<Pick<ConformanceTarget, 'nodes'>> {
  return {
    async flushScripts() {
      for (const node of mastersOf(client)) await node.command('SCRIPT', 'FLUSH');
    },
    async scanKeys(pattern) {
      return (await Promise.all(mastersOf(client).map((node) => scanNode(node, pattern)))).flat();
    },
    nodes: () => Promise.resolve(mastersOf(client)),
  };
}
