import type { Cluster } from 'ioredis';
import { ShaMismatchError } from '../errors/connection.js';
import type { Script } from '../scripts/script.js';

/** A `SCRIPT LOAD` reply must be the digest computed from the source: anything else is a hard fault. */
export function checkDigest(script: Script, digest: unknown): void {
  if (digest !== script.sha) throw new ShaMismatchError(script.name, script.sha, String(digest));
}

/**
 * Loads a script on every master the cluster client knows. A master that does not answer is
 * skipped, not fatal: during a failover the client still lists the dead one, and one failed load
 * must never stop the whole cluster. A node this misses (a replica promoted since) answers
 * NOSCRIPT again, and the connector then runs the source there by `EVAL`.
 */
export async function loadOnMasters(cluster: Cluster, script: Script): Promise<void> {
  const digests = await Promise.allSettled(cluster.nodes('master').map((node) => node.call('SCRIPT', 'LOAD', script.source)));
  for (const d of digests) if (d.status === 'fulfilled') checkDigest(script, d.value);
}
