import { startCluster, uniqueName, type RedisCluster } from '@echo/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, CrossSlotError, FENCE_KEY, ShaMismatchError, StaleError, VersionFenceError, WIRE_VERSION, mintId, queueKeys, scripts, slot, type Script } from './support.js';

let cluster: RedisCluster;
let conn: Connection;

beforeAll(async () => {
  cluster = await startCluster({ masters: 3 });
  conn = await Connection.connect({ cluster: cluster.seeds, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
  await cluster.stop();
});

function enqueue(q: string) {
  const k = queueKeys(q);
  const id = mintId('JOB');
  return conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'p']);
}

describe('connector on a 3-master Redis Cluster', () => {
  it('fenced the cluster before any work', async () => {
    expect(conn.isCluster).toBe(true);
    expect(await conn.command('GET', FENCE_KEY)).toBe(WIRE_VERSION);
  });

  it('runs transitions for queues living on different slots and nodes', async () => {
    const queues = Array.from({ length: 12 }, () => uniqueName('cq'));
    const slots = new Set(queues.map((q) => Math.floor(slot(queueKeys(q).pending) / 5462)));
    expect(slots.size).toBeGreaterThan(1);
    for (const q of queues) expect(await enqueue(q)).toBe(1);
    for (const q of queues) expect(await conn.command('ZCARD', queueKeys(q).pending)).toBe(1);
  });

  it('loads scripts on the owning node after NOSCRIPT and maps errors the same way', async () => {
    for (const node of cluster.nodes) {
      const direct = new Redis({ host: node.host, port: node.port });
      await direct.call('SCRIPT', 'FLUSH');
      direct.disconnect();
    }
    const q = uniqueName('cflush');
    const loads = conn.stats().scriptLoads;
    expect(await enqueue(q)).toBe(1);
    expect(conn.stats().scriptLoads).toBe(loads + 1);
    const k = queueKeys(q);
    const id = mintId('JOB');
    await conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'x']);
    const error = await conn
      .run(
        scripts().complete,
        [k.active, k.pending, k.schedule, k.dead, k.job(id), k.metricsCompleted, k.gactive, k.glimit, k.ring, k.wake, k.paused, k.laneRoot, k.jobRoot, k.events, k.meta, k.completed, k.dedupRoot, k.journal, k.outcomes],
        [id, '7', '', '', id, ''],
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StaleError);
  });

  it('pipelines a batch on one queue and refuses keys across slots', async () => {
    const k = queueKeys(uniqueName('cbatch'));
    const ids = [mintId('JOB'), mintId('JOB'), mintId('JOB')];
    const results = await conn.runBatch(ids.map((id) => ({ script: scripts().enqueue, keys: [k.job(id), k.pending, k.events, k.meta, k.journal], args: [id, 'b'] })));
    expect(results.map((r) => r.ok && r.value)).toEqual([1, 1, 1]);
    const other = queueKeys(uniqueName('other'));
    const id = mintId('JOB');
    await expect(conn.run(scripts().enqueue, [k.job(id), other.pending, other.events, other.meta, other.journal], [id, 'x'])).rejects.toBeInstanceOf(CrossSlotError);
  });

  it('refuses a cluster whose fence holds another major', async () => {
    const client = cluster.client();
    try {
      await client.set(FENCE_KEY, 'echomq:9.0.0');
      await expect(Connection.connect({ cluster: cluster.seeds, connectTimeoutMs: 5000 })).rejects.toBeInstanceOf(VersionFenceError);
    } finally {
      await client.set(FENCE_KEY, WIRE_VERSION);
      client.disconnect();
    }
  });

  it('fails hard on a SHA mismatch from a node, as on a standalone server', async () => {
    const plain = await Connection.connect({ cluster: cluster.seeds, strictKeys: false });
    try {
      const forged: Script = { ...scripts().queue_pause, sha: 'f'.repeat(40) };
      await expect(plain.run(forged, [queueKeys(uniqueName('csha')).meta], [])).rejects.toBeInstanceOf(ShaMismatchError);
    } finally {
      await plain.close();
    }
  });

  it('accepts a stored fence of the same major and leaves it as it is', async () => {
    const client = cluster.client();
    try {
      await client.set(FENCE_KEY, 'echomq:3.9.9');
      const c = await Connection.connect({ cluster: cluster.seeds });
      expect(await c.command('GET', FENCE_KEY)).toBe('echomq:3.9.9');
      await c.close();
    } finally {
      await client.set(FENCE_KEY, WIRE_VERSION);
      client.disconnect();
    }
  });

  it('stops for good when the fence changed while every node connection was down', async () => {
    const c = await Connection.connect({ cluster: cluster.seeds, name: 'echo-cfence' });
    const admins = cluster.nodes.map((n) => new Redis({ host: n.host, port: n.port }));
    try {
      expect(await enqueueOn(c, uniqueName('cf'))).toBe(1);
      await cluster.client().set(FENCE_KEY, 'echomq:4.0.0');
      for (const admin of admins) await admin.call('CLIENT', 'KILL', 'SKIPME', 'yes', 'TYPE', 'normal');
      let error: unknown;
      for (let i = 0; i < 20; i++) {
        error = await enqueueOn(c, uniqueName('cf')).catch((e: unknown) => e);
        if (error instanceof VersionFenceError) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(error).toBeInstanceOf(VersionFenceError);
      expect(c.status).toBe('fatal');
    } finally {
      await cluster.client().set(FENCE_KEY, WIRE_VERSION);
      for (const admin of admins) admin.disconnect();
      await c.close();
    }
  });
});

function enqueueOn(c: Connection, q: string): Promise<unknown> {
  const k = queueKeys(q);
  const id = mintId('JOB');
  return c.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'p']);
}
