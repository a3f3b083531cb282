import type { Redis } from 'ioredis';

/** Redis Cluster's fixed keyspace size. */
export const CLUSTER_SLOTS = 16_384;

/** What one node believes about the cluster. */
export interface NodeView {
  /** The node's `CLUSTER INFO` text. */
  readonly info: string;
  /** The master of each slot (`host:port`), by slot number; `undefined` where none is known. */
  readonly owners: readonly (string | undefined)[];
  /** Replicas this node knows as attached, connected and not failed (from `CLUSTER NODES`). */
  readonly replicas: number;
}

/** One field of a `CLUSTER INFO` / `INFO` text. */
export function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(\\S*)`, 'm').exec(info)?.[1];
}

/** Who owns each slot according to one node's `CLUSTER SLOTS` (`host:port` of the master). */
function ownersFrom(reply: unknown): (string | undefined)[] {
  const owners = new Array<string | undefined>(CLUSTER_SLOTS).fill(undefined);
  if (!Array.isArray(reply)) return owners;
  for (const entry of reply as unknown[]) {
    if (!Array.isArray(entry)) continue;
    const [start, end, master] = entry as [unknown, unknown, unknown];
    if (typeof start !== 'number' || typeof end !== 'number' || !Array.isArray(master)) continue;
    const [host, port] = master as [unknown, unknown];
    for (let slot = start; slot <= end && slot < CLUSTER_SLOTS; slot++) owners[slot] = `${String(host)}:${String(port)}`;
  }
  return owners;
}

/**
 * Counts healthy replicas in a `CLUSTER NODES` text. Not from `CLUSTER SLOTS`: that one hides a
 * replica until its replication offset moves, which on an idle master takes a ping period (10 s).
 */
function replicasFrom(text: unknown): number {
  if (typeof text !== 'string') return 0;
  return text.split('\n').filter((line) => {
    const [, , flags, , , , , link] = line.split(' ');
    const set = new Set(flags?.split(','));
    return set.has('slave') && !set.has('fail') && !set.has('fail?') && !set.has('handshake') && link === 'connected';
  }).length;
}

/** Asks one node for its view. */
export async function viewOf(admin: Redis): Promise<NodeView> {
  const [info, slots, nodes] = await Promise.all([admin.cluster('INFO'), admin.cluster('SLOTS'), admin.cluster('NODES')]);
  return { info, owners: ownersFrom(slots), replicas: replicasFrom(nodes) };
}

/** What a formed (or healed) cluster must look like from every node. */
export interface ClusterPlan {
  /** `host:port` of the master each slot must map to. */
  readonly owners: readonly string[];
  /** Nodes the cluster knows, failed ones included. */
  readonly knownNodes: number;
  /** Masters serving slots. */
  readonly masters: number;
  /** Replicas every node must see attached. */
  readonly replicas: number;
}

/** Why a node does not yet agree with the plan, or `undefined` when it does. */
export function disagreement(view: NodeView, plan: ClusterPlan): string | undefined {
  const state = infoField(view.info, 'cluster_state');
  if (state !== 'ok') return `cluster_state:${String(state)}`;
  const known = Number(infoField(view.info, 'cluster_known_nodes'));
  const size = Number(infoField(view.info, 'cluster_size'));
  if (known !== plan.knownNodes || size !== plan.masters) return `knows ${known} nodes / ${size} masters`;
  const wrong = plan.owners.findIndex((owner, slot) => view.owners[slot] !== owner);
  if (wrong !== -1) return `slot ${wrong} -> ${String(view.owners[wrong])}`;
  if (view.replicas !== plan.replicas) return `sees ${view.replicas} of ${plan.replicas} replicas`;
  return undefined;
}
