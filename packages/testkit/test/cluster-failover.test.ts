import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_SLOTS, isProcessAlive, startCluster, type RedisCluster } from '../src/index.js';

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 2_000 });
}, 60_000);

afterAll(async () => {
  await cluster.stop();
});

describe('startCluster with replicas', () => {
  it('forms 3 masters, each with a replica whose link is up', async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(cluster.masters).toEqual(cluster.nodes.slice(0, 3));
    for (const [i, replica] of cluster.nodes.slice(3).entries()) {
      const admin = replica.client();
      try {
        const info = await admin.info('replication');
        expect(info).toMatch(/^role:slave\r?$/m);
        expect(info).toMatch(/^master_link_status:up\r?$/m);
        expect(info).toMatch(new RegExp(`^master_port:${cluster.masters[i]?.port ?? 0}\\r?$`, 'm'));
      } finally {
        admin.disconnect();
      }
    }
    expect(await cluster.masterOf(0)).toBe(cluster.masters[0]);
    expect(await cluster.masterOf(CLUSTER_SLOTS - 1)).toBe(cluster.masters[2]);
  });

  it('fails a SIGKILLed master over to its replica, data included', async () => {
    const client = cluster.client();
    try {
      const slot = 0;
      const key = '{06S}k'; // hashes to slot 0
      expect(await client.cluster('KEYSLOT', key)).toBe(slot);
      await client.set(key, 'kept');
      // The write must reach the replica before the crash, or the failover legitimately loses it.
      expect(await client.call('WAIT', 1, 2_000)).toBe(1);
      const victim = await cluster.masterOf(slot);
      const pid = victim.pid;
      const outcome = await cluster.failover(victim, { timeoutMs: 20_000 });
      expect(isProcessAlive(pid)).toBe(false);
      expect(outcome.killed).toBe(victim);
      expect(outcome.promoted).toBe(cluster.nodes[3]);
      expect(outcome.healedAt).toBeGreaterThan(outcome.killedAt);
      expect(await cluster.masterOf(slot)).toBe(outcome.promoted);
      const direct = outcome.promoted.client();
      try {
        expect(await direct.get(key)).toBe('kept');
      } finally {
        direct.disconnect();
      }
    } finally {
      client.disconnect();
    }
  }, 60_000);

  it('refuses to fail over a node that serves no slot', async () => {
    await expect(cluster.failover(cluster.nodes[4]!)).rejects.toThrow(/not a master/);
  });
});
