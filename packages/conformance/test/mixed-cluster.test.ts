/** The mixed conformance mode on a 3-master Redis Cluster: Echo beside the spec-only runtime. */
import { startCluster } from '@echo/testkit';
import { Cluster } from 'ioredis';
import { describe } from 'vitest';
import { createTarget } from '../src/index.js';
import { mixedSuite } from './mixed-suite.js';

describe('mixed conformance: 3-master cluster', () => {
  mixedSuite(async () => {
    const cluster = await startCluster({ masters: 3 });
    const target = await createTarget({ connect: { cluster: cluster.seeds, strictKeys: true } });
    const client = new Cluster(cluster.seeds.map((seed) => ({ ...seed })));
    return {
      target,
      client,
      close: async () => {
        client.disconnect();
        await target.close();
        await cluster.stop();
      },
    };
  });
});
