/** The mixed conformance mode on one standalone Redis: Echo beside the spec-only runtime. */
import { useRedis } from '@echo/testkit';
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import { createTarget } from '../src/index.js';
import { mixedSuite } from './mixed-suite.js';

describe('mixed conformance: standalone', () => {
  mixedSuite(async () => {
    const { url } = await useRedis();
    const target = await createTarget({ connect: { url, strictKeys: true } });
    const client = new Redis(url, { lazyConnect: false });
    return {
      target,
      client,
      close: async () => {
        client.disconnect();
        await target.close();
      },
    };
  });
});
