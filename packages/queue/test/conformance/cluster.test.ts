/** The conformance scenarios against a 3-master Redis Cluster. */
import { startCluster } from '@echo/testkit';
import { describe } from 'vitest';
import { Connection } from '@echo/protocol';
import { conformanceSuite } from './suite.js';

describe('conformance: 3-master cluster', { timeout: 30_000 }, () => {
  conformanceSuite(async () => {
    const cluster = await startCluster({ masters: 3 });
    const conn = await Connection.connect({ cluster: cluster.seeds, strictKeys: true });
    return {
      conn,
      // Scripts are cached per node: every master must forget them for the NOSCRIPT path to run.
      flushScripts: async () => {
        for (const node of cluster.nodes) {
          const client = node.client();
          try {
            await client.call('SCRIPT', 'FLUSH');
          } finally {
            client.disconnect();
          }
        }
      },
      close: async () => {
        await conn.close();
        await cluster.stop();
      },
    };
  });
});
