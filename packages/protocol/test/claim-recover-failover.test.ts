/**
 * A claim ticket survives a master kill: the rows a claim leased on a master that dies carry their
 * ticket to the promoted replica, so a worker whose claim reply the kill cut off reads them back
 * there (claim_recover) instead of leaving them to their 30 s lease.
 */
import { startCluster, uniqueName, type RedisCluster, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, mintId, queueKeys, reads, slot, transitions as t, execute, type JobId } from './support.js';

const LEASE_MS = 30_000;
let cluster: RedisCluster;
let conn: Connection;

beforeAll(async () => {
  cluster = await startCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 2_000 });
  conn = await Connection.connect({ cluster: cluster.seeds, reconnectWaitMs: 20_000, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close({ immediate: true });
  await cluster.stop();
});

describe('claim tickets across a failover [TS]', () => {
  it('the promoted replica answers what a ticketed claim leased on the killed master', async () => {
    const victim = cluster.masters[0] as RedisServer;
    let queue = uniqueName('ticket');
    while ((await cluster.masterOf(slot(queueKeys(queue).pending))) !== victim) queue = uniqueName('ticket');
    const id = mintId('JOB') as JobId;
    await execute(conn, t.enqueue({ queue, id, payload: 'p' }));
    const sent = Date.now();
    const claimed = await execute(conn, t.claim({ queue, leaseMs: LEASE_MS, ticket: 'w9.1' }));
    expect(claimed?.id).toBe(id);
    // The row has reached the replica before the kill (replication is asynchronous otherwise): WAIT,
    // pipelined behind a read that routes it to the queue's master, covers every write of that socket.
    const [, waited] = await reads.sendReads(conn, [reads.queue.probe({ keys: queueKeys(queue) }), reads.queue.replicated({ replicas: 1, timeoutMs: 5_000 })]);
    expect(waited.ok && waited.value).toBe(1);
    const failover = await cluster.failover(victim, { timeoutMs: 20_000 });
    expect(failover.promoted).not.toBe(victim);
    const found = await execute(conn, t.recoverClaims({ queue, ticket: 'w9.1', sinceMs: Date.now() - sent + 10_000, leaseMs: LEASE_MS }));
    expect(found.map((r) => [r.id, r.attempts, r.payload])).toEqual([[id, 1, 'p']]);
    // Its token is live on the new master: the completion lands.
    await execute(conn, t.complete({ queue, job: { id, attempts: 1 } }));
  }, 60_000);
});
