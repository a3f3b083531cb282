import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { findServerBinary } from './binary.js';
import { infoField } from './cluster-view.js';
import { freePort, LOOPBACK } from './ports.js';
import { delay } from './process-utils.js';
import { checkStartSentinel } from './options.js';
import { baseArgs, launchServer, type RedisServer } from './server.js';

/** Options for {@link startSentinel}. */
export interface StartSentinelOptions {
  /** The name the sentinels monitor the primary under; default `echo`. */
  readonly masterName?: string;
  /** Replicas of the primary; default 1. */
  readonly replicas?: number;
  /** Sentinels; default 3 (a quorum of 2, and a majority left to authorise a failover when one fails). */
  readonly sentinels?: number;
  /**
   * `down-after-milliseconds`: how long the primary may stay silent before a sentinel suspects it,
   * and so the bulk of a failover's duration. Default 1000.
   */
  readonly downAfterMs?: number;
  /** `failover-timeout`; default 5000. */
  readonly failoverTimeoutMs?: number;
  /**
   * Extra `redis-server` arguments for the primary and the replicas (not the sentinels). Every data
   * node gets the same, so a setting that must survive a promotion does, e.g.
   * `['--min-replicas-to-write', '1', '--min-replicas-max-lag', '5']`.
   */
  readonly args?: readonly string[];
  /** Server binary (path or command name); default {@link findServerBinary}. */
  readonly binary?: string;
  /** Bound on the wait for the sentinels to see the replicas and each other; default 20000 ms. */
  readonly formTimeoutMs?: number;
}

/** What {@link SentinelGroup.failover} saw. */
export interface SentinelFailover {
  /** The primary that was SIGKILLed. */
  readonly killed: RedisServer;
  /** The replica every sentinel now names as the primary. */
  readonly promoted: RedisServer;
  /** `Date.now()` just before the kill. */
  readonly killedAt: number;
  /** `Date.now()` when every running sentinel named the promoted replica and it answered as a master. */
  readonly healedAt: number;
}

/** A primary, its replicas and the sentinels watching them, all real processes. */
export interface SentinelGroup {
  /** The monitored master's name, for the client's `name`. */
  readonly masterName: string;
  /** The primary at start. */
  readonly primary: RedisServer;
  /** The replicas at start; after a failover one of them is the primary ({@link currentPrimary}). */
  readonly replicas: readonly RedisServer[];
  /** The sentinel processes (`redis-server <conf> --sentinel`). */
  readonly sentinels: readonly RedisServer[];
  /** The sentinels' addresses, for a client's `sentinels`. */
  readonly sentinelSeeds: readonly { readonly host: string; readonly port: number }[];
  /** The data node every running sentinel names as the primary now. */
  currentPrimary(): Promise<RedisServer>;
  /**
   * SIGKILLs the current primary and resolves once every running sentinel names one of its
   * replicas as the new primary and that replica answers as a master. Takes about `downAfterMs`
   * plus an election (one to three seconds).
   */
  failover(options?: { readonly timeoutMs?: number }): Promise<SentinelFailover>;
  /** Stops every process and removes their temp dirs. Idempotent. */
  stop(): Promise<void>;
}

/** Runs `command` on a short-lived client of `node` that never retries. */
async function ask(node: RedisServer, command: string, ...args: (string | number)[]): Promise<unknown> {
  const admin: Redis = node.client({ maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  // A node that is down (the primary a failover killed, a stopped sentinel) refuses the connect: the
  // call rejects with that error, which the caller handles; without a listener ioredis would also
  // print it as an unhandled error event.
  admin.on('error', () => undefined);
  try {
    return await admin.call(command, ...args);
  } finally {
    admin.disconnect();
  }
}

/** Polls `problem` until it answers `undefined`; throws with its last answer after `timeoutMs`. */
async function settle(what: string, timeoutMs: number, problem: () => Promise<string | undefined>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const issue = await problem().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    if (issue === undefined) return;
    if (Date.now() >= deadline) throw new Error(`Sentinel group did not ${what} within ${timeoutMs} ms: ${issue}`);
    await delay(50);
  }
}

/** `SENTINEL MASTER` replies a flat field/value list. */
function field(reply: unknown, name: string): string | undefined {
  const list = reply as readonly unknown[];
  const at = list.indexOf(name);
  return at === -1 ? undefined : String(list[at + 1]);
}

/**
 * Starts a primary, `replicas` replicas attached to it and `sentinels` sentinels monitoring it
 * (quorum: a majority of the sentinels), and waits until every sentinel sees every replica and
 * every other sentinel, so a failover can be authorised from the first second. Expect about 2-3 s:
 * sentinels find each other through hello messages sent every 2 s.
 */
export async function startSentinel(options: StartSentinelOptions = {}): Promise<SentinelGroup> {
  checkStartSentinel(options);
  const masterName = options.masterName ?? 'echo';
  const replicaCount = options.replicas ?? 1;
  const sentinelCount = options.sentinels ?? 3;
  const downAfterMs = options.downAfterMs ?? 1_000;
  const failoverTimeoutMs = options.failoverTimeoutMs ?? 5_000;
  if (!/^[A-Za-z0-9_.-]+$/.test(masterName)) throw new RangeError(`masterName must be letters, digits, '_', '.', '-', got ${masterName}`);
  if (!Number.isInteger(replicaCount) || replicaCount < 1) throw new RangeError(`replicas must be a positive integer, got ${replicaCount}`);
  if (!Number.isInteger(sentinelCount) || sentinelCount < 1) throw new RangeError(`sentinels must be a positive integer, got ${sentinelCount}`);
  const binary = options.binary ?? findServerBinary();
  const extra = options.args ?? [];
  const started: RedisServer[] = [];
  const launch = async (buildArgs: (port: number, dir: string) => readonly string[]): Promise<RedisServer> => {
    const node = await launchServer({ binary, password: undefined, readyTimeoutMs: 20_000, pickPort: freePort, buildArgs });
    started.push(node);
    return node;
  };

  try {
    const primary = await launch((port, dir) => [...baseArgs(port, dir, 'none', undefined), '--repl-diskless-sync-delay', '0', ...extra]);
    const replicas = await Promise.all(
      Array.from({ length: replicaCount }, () =>
        launch((port, dir) => [...baseArgs(port, dir, 'none', undefined), '--replicaof', LOOPBACK, String(primary.port), '--repl-diskless-sync-delay', '0', ...extra]),
      ),
    );
    await settle('attach its replicas', options.formTimeoutMs ?? 20_000, async () => {
      for (const replica of replicas) {
        const link = infoField(String(await ask(replica, 'INFO', 'replication')), 'master_link_status');
        if (link !== 'up') return `replica ${replica.port}: link ${String(link)}`;
      }
      return undefined;
    });
    const quorum = Math.floor(sentinelCount / 2) + 1;
    const sentinels = await Promise.all(
      Array.from({ length: sentinelCount }, () =>
        launch((port, dir) => {
          // Sentinel insists on a config file it can rewrite; it lives in the node's own dir.
          const conf = join(dir, 'sentinel.conf');
          writeFileSync(
            conf,
            [
              `sentinel monitor ${masterName} ${LOOPBACK} ${primary.port} ${quorum}`,
              `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
              `sentinel failover-timeout ${masterName} ${failoverTimeoutMs}`,
              `sentinel parallel-syncs ${masterName} 1`,
              '',
            ].join('\n'),
          );
          return [conf, '--sentinel', '--port', String(port), '--bind', LOOPBACK, '--dir', dir];
        }),
      ),
    );
    await settle('see its replicas and sentinels', options.formTimeoutMs ?? 20_000, async () => {
      for (const sentinel of sentinels) {
        const master = await ask(sentinel, 'SENTINEL', 'MASTER', masterName);
        const slaves = Number(field(master, 'num-slaves'));
        const others = Number(field(master, 'num-other-sentinels'));
        if (slaves < replicaCount || others < sentinelCount - 1) return `sentinel ${sentinel.port}: ${slaves} replicas, ${others} other sentinels`;
      }
      return undefined;
    });

    const data = [primary, ...replicas];
    const named = async (): Promise<RedisServer | string> => {
      let agreed: RedisServer | undefined;
      for (const sentinel of sentinels.filter((s) => s.running)) {
        const reply = (await ask(sentinel, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as readonly string[] | null;
        const node = data.find((n) => String(n.port) === reply?.[1]);
        if (!node?.running) return `sentinel ${sentinel.port} names ${String(reply?.join(':'))}`;
        if (agreed !== undefined && agreed !== node) return `sentinels disagree: ${agreed.port} and ${node.port}`;
        agreed = node;
      }
      if (agreed === undefined) return 'no sentinel is running';
      const role = infoField(String(await ask(agreed, 'INFO', 'replication')), 'role');
      return role === 'master' ? agreed : `${agreed.port} answers as ${String(role)}`;
    };
    const currentPrimary = async (): Promise<RedisServer> => {
      const node = await named();
      if (typeof node === 'string') throw new Error(`no agreed primary: ${node}`);
      return node;
    };

    let stopped: Promise<void> | undefined;
    return {
      masterName,
      primary,
      replicas,
      sentinels,
      sentinelSeeds: sentinels.map(({ host, port }) => ({ host, port })),
      currentPrimary,
      async failover(failoverOptions = {}): Promise<SentinelFailover> {
        const killed = await currentPrimary();
        const killedAt = Date.now();
        await killed.kill('SIGKILL');
        let promoted: RedisServer | undefined;
        await settle('promote a replica', failoverOptions.timeoutMs ?? 20_000, async () => {
          const node = await named();
          if (typeof node === 'string') return node;
          if (node === killed) return `sentinels still name ${node.port}`;
          promoted = node;
          return undefined;
        });
        return { killed, promoted: promoted as RedisServer, killedAt, healedAt: Date.now() };
      },
      stop(): Promise<void> {
        stopped ??= (async () => {
          // Sentinels first: stopped data nodes would otherwise set off a failover on the way out.
          await Promise.allSettled(sentinels.map((s) => s.stop()));
          const results = await Promise.allSettled(data.map((n) => n.stop()));
          const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (failure !== undefined) throw failure.reason;
        })();
        return stopped;
      },
    };
  } catch (error) {
    await Promise.allSettled(started.map((node) => node.stop()));
    throw error;
  }
}
