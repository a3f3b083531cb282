/** The whole conformance suite against a 3-master Redis Cluster, through the real queue, workers and bus. */
import { startCluster } from '@echo/testkit';
import { describe } from 'vitest';
import { createTarget } from '../src/index.js';
import { conformanceSuite } from './suite.js';

describe('conformance: 3-master cluster', () => {
  conformanceSuite(async () => {
    const cluster = await startCluster({ masters: 3 });
    const target = await createTarget({ connect: { cluster: cluster.seeds, strictKeys: true } });
    return {
      target,
      close: async () => {
        await target.close();
        await cluster.stop();
      },
    };
  });
});
