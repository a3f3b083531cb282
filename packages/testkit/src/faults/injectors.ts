import type { RedisCluster } from '../cluster.js';
import type { LinkProxy } from '../link-proxy.js';
import type { SentinelGroup } from '../sentinel.js';
import type { RedisServer } from '../server.js';
import type { InjectedClock } from './clock.js';

/**
 * One kind of fault: `inject` breaks something, `heal` puts it right. A schedule calls them in
 * pairs, never two faults at once, so every heal sees the world its own inject left.
 */
export interface Fault {
  /** A short name for reports, e.g. `link-blackhole`. */
  readonly kind: string;
  inject(): Promise<void>;
  heal(): Promise<void>;
}

/** What a link fault does to the proxied link (see {@link LinkProxy}). */
export type LinkFaultMode = 'hold' | 'blackhole' | 'partition' | 'lag' | 'cut';

/**
 * A fault on a client↔server link through a {@link LinkProxy}: replies held (`hold`), dropped
 * without a reset (`blackhole`, a half-open socket), both ways dropped (`partition`), slowed by
 * `lagMs` (`lag`), or every socket cut (`cut`, healed at once). Heal releases the link.
 */
export function linkFault(proxies: LinkProxy | readonly LinkProxy[], mode: LinkFaultMode, options: { readonly lagMs?: number } = {}): Fault {
  const list = Array.isArray(proxies) ? (proxies as readonly LinkProxy[]) : [proxies as LinkProxy];
  return {
    kind: `link-${mode}`,
    inject: () => {
      for (const proxy of list) {
        if (mode === 'hold') proxy.hold();
        else if (mode === 'blackhole') proxy.blackhole();
        else if (mode === 'partition') proxy.partition();
        else if (mode === 'lag') proxy.lag(options.lagMs ?? 500);
        else proxy.cut();
      }
      return Promise.resolve();
    },
    heal: () => {
      for (const proxy of list) proxy.release();
      return Promise.resolve();
    },
  };
}

/** Runs one admin command on a short-lived client of `node` that never retries. */
async function admin(node: RedisServer, ...command: [string, ...(string | number)[]]): Promise<unknown> {
  const client = node.client({ maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000 });
  // A fault can land while the node is down (a restart in progress): the call rejects with the
  // refused connect, so the client's own error event carries nothing more and must not print as
  // ioredis's "Unhandled error event".
  client.on('error', () => undefined);
  try {
    return await client.call(...command);
  } finally {
    client.disconnect();
  }
}

/**
 * `CLIENT PAUSE` on `node` for `pauseMs` (default 2000): `ALL` stalls every command of every normal
 * client, `WRITE` only writes. The server refuses nothing while paused, not even `CLIENT UNPAUSE`,
 * so the pause ends by its own timeout; heal waits for that moment.
 */
export function clientPauseFault(node: RedisServer, options: { readonly mode?: 'ALL' | 'WRITE'; readonly pauseMs?: number } = {}): Fault {
  const mode = options.mode ?? 'ALL';
  const pauseMs = options.pauseMs ?? 2_000;
  let endsAt = 0;
  return {
    kind: `client-pause-${mode.toLowerCase()}`,
    inject: async () => {
      endsAt = Date.now() + pauseMs;
      await admin(node, 'CLIENT', 'PAUSE', pauseMs, mode);
    },
    heal: () => new Promise((resolve) => setTimeout(resolve, Math.max(0, endsAt - Date.now()))),
  };
}

/**
 * A crash and a restart from the AOF: inject SIGKILLs `node`, heal starts it again on the same port
 * and dir. Start the server with `persistence: 'aof'` or acknowledged writes are lost with it.
 */
export function aofRestartFault(node: RedisServer): Fault {
  return {
    kind: 'redis-restart-aof',
    inject: () => node.kill('SIGKILL'),
    heal: () => node.restart(),
  };
}

/**
 * `maxmemory` set just below what `node` uses now (policy `noeviction` answers every write with
 * `OOM`); heal restores the previous limit.
 */
export function memoryFullFault(node: RedisServer): Fault {
  let previous = '0';
  return {
    kind: 'memory-full',
    inject: async () => {
      const got = (await admin(node, 'CONFIG', 'GET', 'maxmemory')) as string[];
      previous = got[1] ?? '0';
      const info = String(await admin(node, 'INFO', 'memory'));
      const used = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? '1048576');
      await admin(node, 'CONFIG', 'SET', 'maxmemory', Math.max(1, used - 1024));
    },
    heal: async () => {
      await admin(node, 'CONFIG', 'SET', 'maxmemory', previous);
    },
  };
}

/** Options for {@link masterKillFault} and {@link sentinelFailoverFault}. */
export interface FailoverFaultOptions {
  /** How long the inject waits for the promotion, and the heal for each of its waits; default 30000. */
  readonly timeoutMs?: number;
  /**
   * Hears when the primary was SIGKILLed (`Date.now()` just before the signal; when the promotion
   * never came, the time the inject began): writes it acknowledged shortly before may be lost with
   * it (asynchronous replication), so a run judges them against this moment, not the step's start
   * (the inject first looks up whom to kill, which takes a while on a loaded machine).
   */
  readonly onKill?: (at: number) => void;
}

/**
 * Resolves once `node` is the master `leads()` says it is, or a replica whose link to its master is
 * up and whose first sync is done. A node restarted without data answers as soon as it is up (as a
 * master, until it is told otherwise) but cannot be promoted until it has synced (Redis refuses a
 * replica whose data is too old): killing its master before then leaves that master's slots, or the
 * whole Sentinel group, without a primary.
 */
async function awaitCaughtUp(node: RedisServer, leads: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const info = String(await admin(node, 'INFO', 'replication'));
      const field = (name: string): string | undefined => new RegExp(`^${name}:(\\S*)`, 'm').exec(info)?.[1];
      if (field('role') === 'master' && (await leads())) return;
      if (field('master_link_status') === 'up' && field('master_sync_in_progress') === '0') return;
      last = `role ${String(field('role'))}, link ${String(field('master_link_status'))}, syncing ${String(field('master_sync_in_progress'))}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) throw new Error(`node ${node.port} not caught up within ${timeoutMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A cluster master SIGKILLed and its replica promoted: inject picks the master of a slot
 * (`slot()`, default 0) and waits until the cluster is healthy again without it; heal restarts the
 * killed node, which rejoins as a replica, and waits until every slot has a reachable master that
 * every node agrees on and the restarted node has synced, so the next kill has a replica to promote.
 *
 * The node is the heal's to restart as soon as it is killed: an inject whose promotion does not come
 * (no replica fit to take over) throws, and its heal still brings the master back; without it the
 * master's slots would stay without one for the rest of the run.
 */
export function masterKillFault(cluster: RedisCluster, slot: () => number = () => 0, options: FailoverFaultOptions = {}): Fault {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let killed: RedisServer | undefined;
  return {
    kind: 'master-kill',
    inject: async () => {
      const master = await cluster.masterOf(slot());
      killed = master;
      const began = Date.now();
      try {
        // Kill first, then tell: an optional call (`onKill?.(…)`) would skip evaluating its argument,
        // and with it the failover, when no listener was given.
        const { killedAt } = await cluster.failover(master, { timeoutMs });
        options.onKill?.(killedAt);
      } catch (error) {
        options.onKill?.(began);
        throw error;
      }
    },
    heal: async () => {
      const node = killed;
      killed = undefined;
      if (node === undefined) return;
      if (!node.running) await node.restart();
      await cluster.awaitHealthy({ timeoutMs });
      // Every node agrees on the slots now (awaitHealthy): the node's own line says whether it serves any.
      const leads = async (): Promise<boolean> => {
        const mine = String(await admin(node, 'CLUSTER', 'NODES'))
          .split('\n')
          .find((line) => line.split(' ')[2]?.split(',').includes('myself') === true);
        return (mine?.split(' ').length ?? 0) > 8;
      };
      await awaitCaughtUp(node, leads, timeoutMs);
    },
  };
}

/**
 * A Sentinel failover: inject SIGKILLs the current primary and waits until every sentinel names a
 * promoted replica; heal restarts the old primary, which the sentinels turn into a replica, and
 * waits until it has synced (the next failover needs it). As with {@link masterKillFault}, the
 * heal restarts the killed node even when the promotion did not come.
 */
export function sentinelFailoverFault(group: SentinelGroup, options: FailoverFaultOptions = {}): Fault {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let killed: RedisServer | undefined;
  return {
    kind: 'sentinel-failover',
    inject: async () => {
      killed = await group.currentPrimary();
      const began = Date.now();
      try {
        const { killedAt } = await group.failover({ timeoutMs });
        options.onKill?.(killedAt);
      } catch (error) {
        options.onKill?.(began);
        throw error;
      }
    },
    heal: async () => {
      const node = killed;
      killed = undefined;
      if (node === undefined) return;
      if (!node.running) await node.restart();
      const leads = async (): Promise<boolean> => (await group.currentPrimary().catch(() => undefined)) === node;
      await awaitCaughtUp(node, leads, timeoutMs);
    },
  };
}

/** The workload's side of {@link processKillFault}: its child processes, and how to replace one. */
export interface ProcessPool {
  /** The pids that may be killed now. */
  pids(): readonly number[];
  /** Starts a replacement for the killed `pid` (the heal). */
  respawn(pid: number): Promise<void>;
}

/**
 * A worker process SIGKILLed (no close, no settlement: its leases must lapse and be reaped), picked
 * with `random` among the workload's pids; heal asks the workload to start a replacement.
 */
export function processKillFault(pool: ProcessPool, random: () => number = Math.random): Fault {
  let victim: number | undefined;
  return {
    kind: 'process-kill',
    inject: () => {
      const pids = pool.pids();
      victim = pids[Math.floor(random() * pids.length)];
      if (victim !== undefined) {
        try {
          process.kill(victim, 'SIGKILL');
        } catch {
          victim = undefined;
        }
      }
      return Promise.resolve();
    },
    heal: async () => {
      const pid = victim;
      victim = undefined;
      if (pid !== undefined) await pool.respawn(pid);
    },
  };
}

/** A clock jump on a worker host: the injected clock moves by `ms` (negative: back); heal resets it. */
export function clockJumpFault(clock: InjectedClock, ms: number): Fault {
  return {
    kind: ms >= 0 ? 'clock-jump-forward' : 'clock-jump-back',
    inject: () => {
      clock.jump(ms);
      return Promise.resolve();
    },
    heal: () => {
      clock.reset();
      return Promise.resolve();
    },
  };
}
