import { join } from 'node:path';
import { Cluster, type Redis } from 'ioredis';
import { findServerBinary } from './binary.js';
import { TEST_CLIENT_DEFAULTS, type ClusterClientOptions, type ReplyMappingMode } from './client-options.js';
import { freeClusterPort, LOOPBACK } from './ports.js';
import { delay } from './process-utils.js';
import { baseArgs, launchServer, type RedisServer } from './server.js';
import { CLUSTER_SLOTS, disagreement, infoField, viewOf, type ClusterPlan } from './cluster-view.js';
import { clusterFailovers, type ClusterFailovers } from './cluster-failover.js';
import { checkStartCluster } from './options.js';

export { CLUSTER_SLOTS } from './cluster-view.js';

/** Options for {@link startCluster}. */
export interface StartClusterOptions {
  /** Number of masters; default 3, the minimum Redis itself recommends. */
  readonly masters?: number;
  /**
   * Replicas attached to each master; default 0. With replicas, a killed master's slots move to
   * its replica (see {@link ClusterFailovers.failover}).
   */
  readonly replicasPerMaster?: number;
  /**
   * `cluster-node-timeout` in ms: how long a node may stay silent before it is suspected, and so
   * the bulk of a failover's duration. Default 5000; failover tests want 2000 or less.
   */
  readonly nodeTimeoutMs?: number;
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
export interface RedisCluster extends ClusterFailovers {
  /**
   * The nodes, as full server handles: besides `host`/`port`/`pid` they allow a plain client to
   * one node (to see raw `MOVED`/`CROSSSLOT` replies) or `kill()`/`restart()` of one node. Masters
   * first, in slot order, then the replicas.
   */
  readonly nodes: readonly RedisServer[];
  /** The masters as formed, in slot order (a failover does not reorder this list). */
  readonly masters: readonly RedisServer[];
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

function slotRanges(masters: number): [number, number][] {
  return Array.from({ length: masters }, (_, i) => [
    Math.floor((i * CLUSTER_SLOTS) / masters),
    Math.floor(((i + 1) * CLUSTER_SLOTS) / masters) - 1,
  ]);
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

/** Polls until `problemsOf` finds nothing; throws the last problems at the deadline. */
async function converge(what: string, deadline: number, timeoutMs: number, problemsOf: () => Promise<string[]>): Promise<void> {
  let problems: string[];
  for (;;) {
    problems = await problemsOf();
    if (problems.length === 0) return;
    if (Date.now() >= deadline) break;
    await delay(100);
  }
  throw new Error(`Redis Cluster did not ${what} within ${timeoutMs} ms: ${problems.join('; ')}`);
}

/** Attaches each replica to its master once both know each other, and waits for the link. */
async function attachReplicas(
  masterAdmins: readonly Redis[],
  replicaAdmins: readonly (readonly Redis[])[],
  deadline: number,
  timeoutMs: number,
): Promise<void> {
  const ids = await Promise.all(masterAdmins.map((admin) => admin.cluster('MYID')));
  await converge('attach its replicas', deadline, timeoutMs, async () => {
    const results = await Promise.all(
      replicaAdmins.flatMap((admins, i) =>
        admins.map(async (admin) => {
          const link = infoField(await admin.info('replication'), 'master_link_status');
          if (link === 'up') return [];
          // Refused with "Unknown node" until the MEET handshake reached this replica: retried.
          if (link === undefined) await admin.cluster('REPLICATE', String(ids[i])).catch(() => undefined);
          return [`replica of master ${i}: link ${String(link)}`];
        }),
      ),
    );
    return results.flat();
  });
}

async function form(masters: readonly RedisServer[], replicas: readonly (readonly RedisServer[])[], timeoutMs: number): Promise<void> {
  const all = [...masters, ...replicas.flat()];
  const admins = all.map((node) => node.client());
  const masterAdmins = admins.slice(0, masters.length);
  const perMaster = replicas[0]?.length ?? 0;
  const replicaAdmins = replicas.map((_, i) => admins.slice(masters.length + i * perMaster, masters.length + (i + 1) * perMaster));
  const ranges = slotRanges(masters.length);
  const deadline = Date.now() + timeoutMs;
  try {
    await Promise.all(
      masterAdmins.map(async (admin, i) => {
        await addSlots(admin, ranges[i] ?? [0, -1]);
        // Distinct epochs up front, as redis-cli does: otherwise all nodes start at epoch 0 and the
        // cluster spends extra gossip rounds resolving the collision before it settles.
        await admin.cluster('SET-CONFIG-EPOCH', i + 1);
      }),
    );
    // Every pair meets directly: with MEETs from one node only, the others learn of each other by
    // gossip, which pings one random peer per second and adds seconds to formation.
    await Promise.all(admins.flatMap((admin, i) => all.slice(i + 1).map((peer) => admin.cluster('MEET', LOOPBACK, peer.port))));
    if (perMaster > 0) await attachReplicas(masterAdmins, replicaAdmins, deadline, timeoutMs);

    const owners: string[] = [];
    ranges.forEach(([start, end], i) => {
      for (let slot = start; slot <= end; slot++) owners[slot] = `${LOOPBACK}:${masters[i]?.port ?? 0}`;
    });
    const plan: ClusterPlan = { owners, knownNodes: all.length, masters: masters.length, replicas: masters.length * perMaster };
    await converge('converge', deadline, timeoutMs, async () => {
      const views = await Promise.all(admins.map(viewOf));
      return views.flatMap((view, i) => {
        const issue = disagreement(view, plan);
        return issue === undefined ? [] : [`node ${all[i]?.port ?? '?'}: ${issue}`];
      });
    });
  } finally {
    for (const admin of admins) admin.disconnect();
  }
}

/**
 * Forms a real Redis Cluster of `masters` nodes on loopback, each with `replicasPerMaster` replicas,
 * and waits until every node reports `cluster_state:ok`, knows every node, maps all 16384 slots
 * identically and sees every replica attached (and every replica's link is up).
 *
 * Formed in-process (ADDSLOTSRANGE, SET-CONFIG-EPOCH, MEET, REPLICATE) rather than with
 * `redis-cli --cluster create`, so only the server binary is needed. The wait matters: writes sent
 * before every node agrees fail with CLUSTERDOWN. Expect about 2.5 s; masters hold back `ok` for
 * 2 s after start.
 *
 * Each node needs its port `p` and its bus port `p + 10000` free; both are checked, and a node
 * that loses the race for either is restarted on a fresh pair.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<RedisCluster> {
  checkStartCluster(options);
  const masters = options.masters ?? 3;
  const perMaster = options.replicasPerMaster ?? 0;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 5_000;
  if (!Number.isInteger(masters) || masters < 1) throw new RangeError(`masters must be a positive integer, got ${masters}`);
  if (!Number.isInteger(perMaster) || perMaster < 0) throw new RangeError(`replicasPerMaster must be a non-negative integer, got ${perMaster}`);
  if (!Number.isInteger(nodeTimeoutMs) || nodeTimeoutMs < 100) throw new RangeError(`nodeTimeoutMs must be an integer >= 100, got ${nodeTimeoutMs}`);
  const binary = options.binary ?? findServerBinary();
  const extra = options.args ?? [];
  const started = await Promise.allSettled(
    Array.from({ length: masters * (1 + perMaster) }, () =>
      launchServer({
        binary,
        password: undefined,
        readyTimeoutMs: 20_000,
        pickPort: freeClusterPort,
        buildArgs: (port, dir) => [
          ...baseArgs(port, dir, 'none', undefined),
          ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')],
          // Announcing loopback explicitly: otherwise a node learns its own address from peers, and
          // until it has, CLUSTER SLOTS may list it with an empty host.
          ...['--cluster-node-timeout', String(nodeTimeoutMs), '--cluster-announce-ip', LOOPBACK],
          // A master waits 5 s by default before a diskless full sync, in case more replicas come.
          ...(perMaster > 0 ? ['--repl-diskless-sync-delay', '0'] : []),
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

  const primaries = nodes.slice(0, masters);
  const replicas = primaries.map((_, i) => nodes.slice(masters + i * perMaster, masters + (i + 1) * perMaster));
  try {
    await form(primaries, replicas, options.formTimeoutMs ?? 20_000);
  } catch (error) {
    await Promise.allSettled(nodes.map((node) => node.stop()));
    throw error;
  }

  const seeds = nodes.map(({ host, port }) => ({ host, port }));
  const clients = new Set<Cluster<ReplyMappingMode>>();
  let stopped: Promise<void> | undefined;
  return {
    nodes,
    masters: primaries,
    seeds,
    ...clusterFailovers(nodes),
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
