/**
 * A claim cut off by a master kill: the claim ran on the primary and replicated, its reply was on
 * its way when the primary was SIGKILLed, and its replica was promoted. The worker's reconnect lands
 * on the promoted replica, which holds the lease and its claim ticket (replicated with the row), and
 * the job runs on that lease within 2 s of the reconnect instead of waiting out its 30 s lease.
 *
 * The client reaches the primary through a link proxy (which holds the claim's reply, then drops
 * the link at the kill) and a forwarder the test points at the promoted replica: a plain connection
 * that follows the failover the way a DNS name or a virtual IP moved to the new primary would.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Connection } from '@echo/protocol/queue';
import { startLinkProxy, startRedis, uniqueName, type LinkProxy, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { hgetall, until } from './worker-harness.js';

const LEASE_MS = 30_000;

/** The bound (see claim-cut-off.test.ts for the room it leaves a loaded machine). */
const RECOVERY_BOUND_MS = 2_000;

const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** A TCP forwarder to one server at a time: {@link Forwarder.point} moves the connections made from then on. */
interface Forwarder {
  readonly port: number;
  point(target: RedisServer): void;
  close(): Promise<void>;
}

async function startForwarder(first: RedisServer): Promise<Forwarder> {
  let target = first;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    point: (next) => {
      target = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `INFO replication`'s `master_link_status` on `replica` is `up`: it streams from its primary. */
async function inSync(replica: Redis): Promise<boolean> {
  return (await replica.info('replication')).includes('master_link_status:up');
}

describe('a claim cut off by a master kill', () => {
  it('runs on the promoted replica within 2 s of the reconnect, on the lease the lost claim granted', async () => {
    const primary = await startRedis({ args: ['--repl-diskless-sync-delay', '0'] });
    cleanups.push(() => primary.stop());
    // The primary is fenced first: a replica refuses the fence's write until it is promoted.
    const onPrimary = await Connection.connect(primary.url);
    cleanups.push(() => onPrimary.close({ immediate: true }));
    const replica = await startRedis({ args: ['--replicaof', primary.host, String(primary.port)] });
    cleanups.push(() => replica.stop());
    const replicaAdmin = replica.client();
    await until(() => inSync(replicaAdmin), 'the replica to sync');

    const forwarder = await startForwarder(primary);
    cleanups.push(() => forwarder.close());
    const proxy: LinkProxy = await startLinkProxy({ target: { host: '127.0.0.1', port: forwarder.port } });
    cleanups.push(() => proxy.close());
    const via = await Connection.connect(`redis://${proxy.host}:${String(proxy.port)}`);
    cleanups.push(() => via.close({ immediate: true }));

    const name = uniqueName('killcut');
    const queue = await Queue.open<number>(name, { connection: via });
    const watch = await Queue.open<number>(name, { connection: onPrimary });
    const runs: string[] = [];
    const startedAt = new Map<string, number>();
    let armed = false;
    let second: string | undefined;
    const worker = await Worker.start(
      queue,
      async (job) => {
        startedAt.set(job.id, Date.now());
        runs.push(`${job.id}@${String(job.attempts)}`);
        if (!armed) return;
        armed = false;
        // The round that completes this job claims the next one; its reply stays in the proxy.
        second = (await watch.enqueue(2)).id;
        proxy.hold();
      },
      { concurrency: 1, leaseMs: LEASE_MS, blockMs: 50, maintenanceMs: 0, onError: () => undefined },
    );
    cleanups.push(() => worker.close());
    // One job first, so the round's script is loaded on the primary (a NOSCRIPT reply would be held too).
    const warm = await watch.enqueue(0);
    await until(async () => (await watch.getState(warm.id)) === 'absent', 'the first job to complete');
    armed = true;
    const first = await watch.enqueue(1);
    await until(() => second !== undefined, 'the armed job to run');
    const id = second as unknown as typeof first.id;
    await until(async () => (await watch.getState(id)) === 'active', 'the held round to lease the next job');
    await until(() => proxy.heldBytes > 0, 'the round reply to reach the proxy');
    // The lease and its ticket are on the replica before the kill: what the promotion keeps.
    expect(Number(await onPrimary.command('WAIT', 1, 10_000))).toBe(1);
    const row = await hgetall({ command: (name, ...args) => replicaAdmin.call(name, ...args) }, watch.keys.job(id));
    expect(row.state).toBe('active');
    expect(row.claim_ticket).toMatch(/@1$/);

    await primary.kill('SIGKILL');
    // The reply dies with the primary's link; the worker reconnects to whatever serves the address.
    proxy.cut();
    await replicaAdmin.call('REPLICAOF', 'NO', 'ONE');
    forwarder.point(replica);
    const cut = Date.now();

    const onPromoted = await Connection.connect(replica.url);
    cleanups.push(() => onPromoted.close({ immediate: true }));
    const after = await Queue.open<number>(name, { connection: onPromoted });
    await until(async () => (await after.getState(id)) === 'absent', 'the job the lost claim leased to run and complete', LEASE_MS / 2);
    await until(() => via.stats().readyAt >= cut, 'the worker to reconnect');
    const reconnectedAt = via.stats().readyAt;
    expect((startedAt.get(id) ?? Infinity) - reconnectedAt).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    // Attempt 1: it ran on the lease the lost claim granted, not after that lease lapsed.
    expect(runs).toEqual([`${warm.id}@1`, `${first.id}@1`, `${id}@1`]);
  });
});
