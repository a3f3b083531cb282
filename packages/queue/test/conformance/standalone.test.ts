/** The shipped conformance suite against one standalone Redis, through the real Queue and workers. */
import { Connection } from '@echo/protocol';
import { useRedis } from '@echo/testkit';
import { describe } from 'vitest';
import { conformanceSuite } from './suite.js';
import { queueTarget } from './target.js';

describe('conformance: standalone', () => {
  conformanceSuite(async () => {
    const conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
    return { target: queueTarget(conn), close: () => conn.close() };
  });
});
