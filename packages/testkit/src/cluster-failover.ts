import type { Redis } from 'ioredis';
import { CLUSTER_SLOTS, infoField, viewOf, type NodeView } from './cluster-view.js';
import { delay } from './process-utils.js';
import type { RedisServer } from './server.js';

/** Options for the cluster's health waits. */
export interface HealthOptions {
  /** Give up after this many ms; default 20000. */
  readonly timeoutMs?: number;
}

/** What {@link ClusterFailovers.failover} saw. */
export interface Failover {
  /** The master that was SIGKILLed. */
  readonly killed: RedisServer;
  /** The replica that now serves the killed master's slots. */
  readonly promoted: RedisServer;
  /** `Date.now()` just before the kill. */
  readonly killedAt: number;
  /** `Date.now()` when every surviving node first agreed the cluster was whole again. */
  readonly healedAt: number;
}

/** Failover helpers of a cluster formed with replicas. */
export interface ClusterFailovers {
  /** The node that serves `slot` as master now, as a running node sees it. */
  masterOf(slot: number): Promise<RedisServer>;
  /**
   * Resolves once every running node reports `cluster_state:ok` and all of them map every slot to
   * the same running master. After a master dies this is the moment its replica was promoted and
   * the others accepted it.
   */
  awaitHealthy(options?: HealthOptions): Promise<void>;
  /**
   * SIGKILLs `master` (a crash: no shutdown, no handover) and resolves once one of its replicas
   * serves its slots and the cluster is healthy again ({@link awaitHealthy}). Takes about
   * `nodeTimeoutMs` plus an election (a second or two).
   */
  failover(master: RedisServer, options?: HealthOptions): Promise<Failover>;
}

function addressOf(node: RedisServer): string {
  return `${node.host}:${node.port}`;
}

/** Asks every running node for its view, on short-lived clients that never retry. */
async function views(nodes: readonly RedisServer[]): Promise<{ node: RedisServer; view: NodeView | Error }[]> {
  return Promise.all(
    nodes
      .filter((node) => node.running)
      .map(async (node) => {
        const admin: Redis = node.client({ maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
        try {
          return { node, view: await viewOf(admin) };
        } catch (error) {
          return { node, view: error instanceof Error ? error : new Error(String(error)) };
        } finally {
          admin.disconnect();
        }
      }),
  );
}

/** Why the cluster is not healthy yet, or `undefined`. */
function unhealthy(seen: Awaited<ReturnType<typeof views>>): string | undefined {
  const running = new Set(seen.map(({ node }) => addressOf(node)));
  let first: NodeView | undefined;
  for (const { node, view } of seen) {
    const where = `node ${node.port}`;
    if (view instanceof Error) return `${where}: ${view.message}`;
    const state = infoField(view.info, 'cluster_state');
    if (state !== 'ok') return `${where}: cluster_state:${String(state)}`;
    first ??= view;
    for (let slot = 0; slot < CLUSTER_SLOTS; slot++) {
      const owner = view.owners[slot];
      if (owner === undefined || !running.has(owner)) return `${where}: slot ${slot} -> ${String(owner)}`;
      if (owner !== first.owners[slot]) return `${where}: slot ${slot} -> ${owner}, another node says ${String(first.owners[slot])}`;
    }
  }
  return first === undefined ? 'no node is running' : undefined;
}

/** The failover helpers over a cluster's nodes. */
export function clusterFailovers(nodes: readonly RedisServer[]): ClusterFailovers {
  const byAddress = (address: string | undefined): RedisServer | undefined => nodes.find((node) => addressOf(node) === address);

  const masterOf = async (slot: number): Promise<RedisServer> => {
    if (!Number.isInteger(slot) || slot < 0 || slot >= CLUSTER_SLOTS) throw new RangeError(`slot must be 0..${CLUSTER_SLOTS - 1}, got ${slot}`);
    for (const { view } of await views(nodes)) {
      if (view instanceof Error) continue;
      const owner = byAddress(view.owners[slot]);
      if (owner !== undefined) return owner;
    }
    throw new Error(`no running node knows who serves slot ${slot}`);
  };

  const awaitHealthy = async (options: HealthOptions = {}): Promise<void> => {
    const timeoutMs = options.timeoutMs ?? 20_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const problem = unhealthy(await views(nodes));
      if (problem === undefined) return;
      if (Date.now() >= deadline) throw new Error(`Redis Cluster not healthy within ${timeoutMs} ms: ${problem}`);
      await delay(50);
    }
  };

  const failover = async (master: RedisServer, options: HealthOptions = {}): Promise<Failover> => {
    if (!nodes.includes(master)) throw new RangeError(`node ${master.port} is not part of this cluster`);
    const before = (await views(nodes)).find(({ view }) => !(view instanceof Error))?.view;
    const slot = before instanceof Error || before === undefined ? -1 : before.owners.indexOf(addressOf(master));
    if (slot === -1) throw new Error(`node ${master.port} serves no slot: not a master`);
    const killedAt = Date.now();
    await master.kill('SIGKILL');
    await awaitHealthy(options);
    const healedAt = Date.now();
    return { killed: master, promoted: await masterOf(slot), killedAt, healedAt };
  };

  return { masterOf, awaitHealthy, failover };
}
