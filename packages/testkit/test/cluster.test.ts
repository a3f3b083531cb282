import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_SLOTS, isProcessAlive, startCluster, type RedisCluster, type RedisServer } from '../src/index.js';

let cluster: RedisCluster;
const plain: Redis[] = [];

function clientFor(node: RedisServer): Redis {
  const client = node.client();
  plain.push(client);
  return client;
}

async function nodeLines(client: Redis): Promise<string[]> {
  const text = await client.cluster('NODES');
  if (typeof text !== 'string') throw new Error('CLUSTER NODES did not return text');
  return text.split('\n');
}

beforeAll(async () => {
  cluster = await startCluster({ masters: 3 });
});

afterAll(async () => {
  for (const client of plain) client.disconnect();
  await cluster.stop();
});

describe('startCluster', () => {
  it('forms a cluster that every node reports ok, with 3 masters covering all slots', async () => {
    expect(cluster.nodes).toHaveLength(3);
    expect(cluster.seeds).toEqual(cluster.nodes.map(({ host, port }) => ({ host, port })));
    for (const node of cluster.nodes) {
      const admin = clientFor(node);
      const info = await admin.cluster('INFO');
      expect(info).toMatch(/^cluster_state:ok\r?$/m);
      expect(info).toMatch(/^cluster_known_nodes:3\r?$/m);
      expect(info).toMatch(/^cluster_size:3\r?$/m);
      expect(info).toMatch(new RegExp(`^cluster_slots_ok:${CLUSTER_SLOTS}\\r?$`, 'm'));
      const masters = (await nodeLines(admin)).filter((line) => line.split(' ')[2]?.split(',').includes('master'));
      expect(masters).toHaveLength(3);
    }
  });

  it('makes each node listen on p and its cluster bus on p + 10000', async () => {
    for (const node of cluster.nodes) {
      const admin = clientFor(node);
      const myself = (await nodeLines(admin)).find((line) => line.includes('myself'));
      expect(myself).toContain(`127.0.0.1:${node.port}@${node.port + 10_000}`);
    }
  });

  it('refuses a cross-slot MSET on the node that owns the first key', async () => {
    const any = clientFor(cluster.nodes[0]!);
    const slot = await any.cluster('KEYSLOT', 'a');
    const ranges = await any.cluster('SLOTS');
    const owner = ranges.find(([start, end]) => slot >= start && slot <= end);
    const node = cluster.nodes.find(({ port }) => port === owner?.[2]?.[1]);
    expect(node).toBeDefined();
    const direct = clientFor(node!);
    await expect(direct.mset('a', '1', 'b', '2')).rejects.toThrow(/^CROSSSLOT/);
  });

  it('routes same-hashtag multi-key commands through the Cluster client', async () => {
    const client = cluster.client();
    try {
      expect(await client.mset('{t}a', '1', '{t}b', '2')).toBe('OK');
      expect(await client.mget('{t}a', '{t}b')).toEqual(['1', '2']);
      await expect(client.mset('a', '1', 'b', '2')).rejects.toThrow(/^CROSSSLOT/);
    } finally {
      client.disconnect();
    }
  });

  // Last on purpose: it tears down the cluster the other tests share.
  it('stop() leaves no node process behind', async () => {
    const pids = cluster.nodes.map((node) => node.pid);
    expect(pids.every(isProcessAlive)).toBe(true);
    await cluster.stop();
    expect(pids.filter(isProcessAlive)).toEqual([]);
  });
});
