/** The shipped conformance suite against a 3-master Redis Cluster, through the real Queue and workers. */
import { Connection } from '@echo/protocol';
import { startCluster } from '@echo/testkit';
import { describe } from 'vitest';
import { conformanceSuite } from './suite.js';
import { queueTarget } from './target.js';

describe('conformance: 3-master cluster', () => {
  conformanceSuite(async () => {
    const cluster = await startCluster({ masters: 3 });
    const conn = await Connection.connect({ cluster: cluster.seeds, strictKeys: true });
    return {
      target: queueTarget(conn),
      close: async () => {
        await conn.close();
        await cluster.stop();
      },
    };
  });
});
