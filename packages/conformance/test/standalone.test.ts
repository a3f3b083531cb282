/** The whole conformance suite against one standalone Redis, through the real queue, workers and bus. */
import { useRedis } from '@echo/testkit';
import { describe } from 'vitest';
import { createTarget } from '../src/index.js';
import { conformanceSuite } from './suite.js';

describe('conformance: standalone', () => {
  conformanceSuite(async () => {
    const target = await createTarget({ connect: { url: (await useRedis()).url, strictKeys: true } });
    return { target, close: () => target.close() };
  });
});
