/**
 * The cluster run's heals leave every slot with a reachable master. A 60-minute cluster run
 * (seed 535639) hung in its drain: a master kill whose promotion never came threw from its inject,
 * the heal had nothing recorded to restart, and that master's slots stayed without one.
 */
import { masterKillFault, startCluster, type FaultStep } from '@echo/testkit';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { fitsRun, withoutLateFailovers } from '../plan.js';

describe('the cluster fault run', () => {
  it('brings a killed master back on heal even when no replica could take over, so every slot has a reachable master', async () => {
    const cluster = await startCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000 });
    const client = cluster.client();
    try {
      const master = await cluster.masterOf(0);
      // Its only replica is gone: no promotion can come. Which node replicates it is the cluster's
      // choice at creation, so each replica is asked whose port it follows.
      let replica: (typeof cluster.nodes)[number] | undefined;
      for (const node of cluster.nodes.filter((n) => !cluster.masters.includes(n))) {
        const probe = new Redis(node.port, node.host, { lazyConnect: true, maxRetriesPerRequest: 1 });
        await probe.connect();
        const info = await probe.info('replication');
        probe.disconnect();
        if (new RegExp(`^master_port:${String(master.port)}\\r?$`, 'm').test(info)) replica = node;
      }
      expect(replica).toBeDefined();
      await replica?.kill('SIGKILL');
      const fault = masterKillFault(cluster, () => 0, { timeoutMs: 4_000 });
      await expect(fault.inject()).rejects.toThrow(/not healthy/);
      expect(master.running).toBe(false);

      await fault.heal();
      // What the drain needs: every node agrees every slot has a running master, and a write to the
      // killed master's slots lands. `{06S}` hashes to slot 0.
      await cluster.awaitHealthy({ timeoutMs: 2_000 });
      expect(master.running).toBe(true);
      expect(await client.set('{06S}k', 'v')).toBe('OK');
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  }, 90_000);

  it('schedules no failover in the last minute of a run (the last quarter of a short one)', () => {
    const step = (atMs: number, kind: string): FaultStep => ({ atMs, kind, holdMs: 1_000 });
    const hour = 3_600_000;
    const plan = [step(10_000, 'master-kill'), step(hour - 61_000, 'master-kill'), step(hour - 59_000, 'master-kill'), step(hour - 30_000, 'sentinel-failover'), step(hour - 20_000, 'client-pause-all')];
    expect(withoutLateFailovers(plan, hour).map((s) => s.atMs)).toEqual([10_000, hour - 61_000, hour - 20_000]);
    const short = [step(10_000, 'master-kill'), step(60_000, 'master-kill'), step(70_000, 'process-kill')];
    expect(withoutLateFailovers(short, 75_000).map((s) => s.atMs)).toEqual([10_000, 70_000]);
  });

  it('skips a step whose turn comes after the run or a failover whose turn comes in its tail (late behind slow heals)', () => {
    const hour = 3_600_000;
    const mayStart = fitsRun(hour);
    const step = (kind: string): FaultStep => ({ atMs: 10_000, kind, holdMs: 1_000 });
    expect(mayStart(step('master-kill'), hour - 61_000)).toBe(true);
    expect(mayStart(step('master-kill'), hour - 59_000)).toBe(false);
    expect(mayStart(step('client-pause-all'), hour - 59_000)).toBe(true);
    expect(mayStart(step('client-pause-all'), hour)).toBe(false);
  });
});
