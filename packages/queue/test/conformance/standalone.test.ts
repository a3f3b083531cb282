/** The conformance scenarios against one standalone Redis. */
import { useRedis } from '@echo/testkit';
import { describe } from 'vitest';
import { Connection } from '@echo/protocol';
import { conformanceSuite } from './suite.js';

describe('conformance: standalone', () => {
  conformanceSuite(async () => {
    const conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
    return {
      conn,
      flushScripts: async () => {
        await conn.command('SCRIPT', 'FLUSH');
      },
      close: () => conn.close(),
    };
  });
});
