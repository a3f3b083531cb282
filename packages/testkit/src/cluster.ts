import { join } from 'node:path';
import { Cluster, type Redis } from 'ioredis';
import { findServerBinary } from './binary.js';
import { TEST_CLIENT_DEFAULTS, type ClusterClientOptions, type ReplyMappingMode } from './client-options.js';
import { freeClusterPort, LOOPBACK } from './ports.js';
import { delay } from './process-utils.js';
import { baseArgs, launchServer, type RedisServer } from './server.js';

/** Redis Cluster's fixed keyspace size. */
export const CLUSTER_SLOTS = 16_384;

/** Options for {@link startCluster}. */
export interface StartClusterOptions {
  /** Number of masters (no replicas); default 3, the minimum Redis itself recommends. */
  readonly masters?: number;
  /** Extra `redis-server` arguments for every node, appended after the testkit's own. */
  readonly args?: readonly string[];
  /** Server binary (path or command name); default {@link findServerBinary}. */
  readonly binary?: string;
  /** Bound on the wait for every node to agree the cluster is ok; default 20000 ms. */
  readonly formTimeoutMs?: number;
}

/** A host/port pair to seed an ioredis `Cluster` with. */
export interface ClusterSeed {
  readonly host: string;
  readonly port: number;
}

/** A running Redis Cluster of real servers on loopback. */
export interface RedisCluster {
  /**
   * The nodes, as full server handles: besides `host`/`port`/`pid` they allow a plain client to
   * one node (to see raw `MOVED`/`CROSSSLOT` replies) or `kill()`/`restart()` of one node.
   */
  readonly nodes: readonly RedisServer[];
  /** Every node's address, for `new Cluster(seeds)`. */
  readonly seeds: readonly ClusterSeed[];
  /**
   * A new ioredis `Cluster` client seeded with every node (test-friendly per-node defaults; any
   * option can be overridden). Clients still open are disconnected by `stop()`.
   */
  client<M extends ReplyMappingMode = 'legacy'>(options?: ClusterClientOptions<M>): Cluster<M>;
  /** Stops every node and removes their dirs. Idempotent. */
  stop(): Promise<void>;
}

interface NodeView {
  readonly info: string;
  readonly owners: readonly (string | undefined)[];
}

function slotRanges(masters: number): [number, number][] {
  return Array.from({ length: masters }, (_, i) => [
    Math.floor((i * CLUSTER_SLOTS) / masters),
    Math.floor(((i + 1) * CLUSTER_SLOTS) / masters) - 1,
  ]);
}

function infoField(info: string, field: string): string | undefined {
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

async function viewOf(admin: Redis): Promise<NodeView> {
  const [info, slots] = await Promise.all([admin.cluster('INFO'), admin.cluster('SLOTS')]);
  return { info, owners: ownersFrom(slots) };
}

/** A node agrees when it is ok, knows every master, and maps every slot to the planned master. */
function disagreement(view: NodeView, expectedOwners: readonly string[], masters: number): string | undefined {
  const state = infoField(view.info, 'cluster_state');
  if (state !== 'ok') return `cluster_state:${String(state)}`;
  const known = Number(infoField(view.info, 'cluster_known_nodes'));
  const size = Number(infoField(view.info, 'cluster_size'));
  if (known !== masters || size !== masters) return `knows ${known} nodes / ${size} masters`;
  const wrong = expectedOwners.findIndex((owner, slot) => view.owners[slot] !== owner);
  return wrong === -1 ? undefined : `slot ${wrong} -> ${String(view.owners[wrong])}`;
}

async function addSlots(admin: Redis, [start, end]: [number, number]): Promise<void> {
  try {
    await admin.cluster('ADDSLOTSRANGE', start, end);
  } catch {
    // ADDSLOTSRANGE arrived in Redis 7.0; older servers take the slots one by one.
    const slots = Array.from({ length: end - start + 1 }, (_, i) => start + i);
    await admin.call('CLUSTER', 'ADDSLOTS', ...slots);
  }
}

async function form(nodes: readonly RedisServer[], admins: readonly Redis[], timeoutMs: number): Promise<void> {
  const ranges = slotRanges(nodes.length);
  await Promise.all(
    admins.map(async (admin, i) => {
      await addSlots(admin, ranges[i] ?? [0, -1]);
      // Distinct epochs up front, as redis-cli does: otherwise all nodes start at epoch 0 and the
      // cluster spends extra gossip rounds resolving the collision before it settles.
      await admin.cluster('SET-CONFIG-EPOCH', i + 1);
    }),
  );
  // Every pair meets directly: with MEETs from one node only, the others learn of each other by
  // gossip, which pings one random peer per second and adds seconds to formation.
  await Promise.all(
    admins.flatMap((admin, i) => nodes.slice(i + 1).map((peer) => admin.cluster('MEET', LOOPBACK, peer.port))),
  );

  const expectedOwners: string[] = [];
  ranges.forEach(([start, end], i) => {
    for (let slot = start; slot <= end; slot++) expectedOwners[slot] = `${LOOPBACK}:${nodes[i]?.port ?? 0}`;
  });
  const deadline = Date.now() + timeoutMs;
  let problems: string[];
  for (;;) {
    const views = await Promise.all(admins.map(viewOf));
    problems = views.flatMap((view, i) => {
      const issue = disagreement(view, expectedOwners, nodes.length);
      return issue === undefined ? [] : [`node ${nodes[i]?.port ?? '?'}: ${issue}`];
    });
    if (problems.length === 0) return;
    if (Date.now() >= deadline) break;
    await delay(100);
  }
  throw new Error(`Redis Cluster did not converge within ${timeoutMs} ms: ${problems.join('; ')}`);
}

/**
 * Forms a real Redis Cluster of `masters` nodes on loopback, without replicas, and waits until every
 * node reports `cluster_state:ok`, knows every master, and maps all 16384 slots identically.
 *
 * Formed in-process (ADDSLOTSRANGE, SET-CONFIG-EPOCH, MEET) rather than with `redis-cli --cluster
 * create`, so only the server binary is needed. The wait matters: writes sent before every node
 * agrees fail with CLUSTERDOWN. Expect about 2.5 s; masters hold back `ok` for 2 s after start.
 *
 * Each node needs its port `p` and its bus port `p + 10000` free; both are checked, and a node
 * that loses the race for either is restarted on a fresh pair.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  if (!Number.isInteger(masters) || masters < 1) throw new RangeError(`masters must be a positive integer, got ${masters}`);
  const binary = options.binary ?? findServerBinary();
  const extra = options.args ?? [];
  const started = await Promise.allSettled(
    Array.from({ length: masters }, () =>
      launchServer({
        binary,
        password: undefined,
        readyTimeoutMs: 5_000,
        pickPort: freeClusterPort,
        buildArgs: (port, dir) => [
          ...baseArgs(port, dir, 'none', undefined),
          ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')],
          // Announcing loopback explicitly: otherwise a node learns its own address from peers, and
          // until it has, CLUSTER SLOTS may list it with an empty host.
          ...['--cluster-node-timeout', '5000', '--cluster-announce-ip', LOOPBACK],
          ...extra,
        ],
      }),
    ),
  );
  const nodes = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) {
    await Promise.allSettled(nodes.map((node) => node.stop()));
    throw failed.reason;
  }

  const admins = nodes.map((node) => node.client());
  try {
    await form(nodes, admins, options.formTimeoutMs ?? 20_000);
  } catch (error) {
    await Promise.allSettled(nodes.map((node) => node.stop()));
    throw error;
  } finally {
    for (const admin of admins) admin.disconnect();
  }

  const seeds = nodes.map(({ host, port }) => ({ host, port }));
  const clients = new Set<Cluster<ReplyMappingMode>>();
  let stopped: Promise<void> | undefined;
  return {
    nodes,
    seeds,
    client<M extends ReplyMappingMode = 'legacy'>(clientOptions?: ClusterClientOptions<M>): Cluster<M> {
      const { retryStrategy: _perNodeRetry, lazyConnect: _lazy, ...perNode } = TEST_CLIENT_DEFAULTS;
      const client = new Cluster<M>(
        seeds.map((seed) => ({ ...seed })),
        { ...clientOptions, redisOptions: { ...perNode, ...clientOptions?.redisOptions } },
      );
      clients.add(client);
      client.once('end', () => clients.delete(client));
      return client;
    },
    stop(): Promise<void> {
      stopped ??= (async () => {
        for (const client of clients) client.disconnect();
        clients.clear();
        const results = await Promise.allSettled(nodes.map((node) => node.stop()));
        const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failure !== undefined) throw failure.reason;
      })();
      return stopped;
    },
  };
}
