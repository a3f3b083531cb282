/**
 * The version-fence policy beside a runtime that accepts only its exact version (the spec-only
 * runtime, as the spec's source connector does): Echo claims exactly `echomq:3.0.0`, only when the
 * key is absent, and never rewrites a present value; so Echo never locks such a peer out. Its own
 * server: these tests rewrite the one fence key of the server.
 */
import { Connection, VersionFenceError, WIRE_VERSION } from '@echo/protocol/extend';
import { startRedis, type RedisServer } from '@echo/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SPEC_FENCE_KEY, SpecFenceError, SpecRuntime } from '../src/spec-runtime/index.js';

let server: RedisServer;
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis(server.port, server.host);
}, 60_000);

afterAll(async () => {
  client.disconnect();
  await server.stop();
});

beforeEach(async () => {
  await client.del(SPEC_FENCE_KEY);
});

async function echoConnects(): Promise<void> {
  const conn = await Connection.connect({ host: server.host, port: server.port });
  await conn.close();
}

describe('the version fence beside an exact-version runtime', () => {
  it('Echo first: Echo stamps exactly echomq:3.0.0 and the exact 3.0.0 runtime connects', async () => {
    await echoConnects();
    expect(await client.get(SPEC_FENCE_KEY)).toBe('echomq:3.0.0');
    expect(WIRE_VERSION).toBe('echomq:3.0.0');
    await expect(SpecRuntime.connect({ client })).resolves.toBeInstanceOf(SpecRuntime);
  });

  it('the exact runtime first: Echo accepts its stamp and leaves it as it is', async () => {
    await SpecRuntime.connect({ client });
    await echoConnects();
    expect(await client.get(SPEC_FENCE_KEY)).toBe('echomq:3.0.0');
    await expect(SpecRuntime.connect({ client })).resolves.toBeInstanceOf(SpecRuntime);
  });

  it('a newer minor stamped by another runtime: Echo accepts it and never rewrites it (older or newer)', async () => {
    await SpecRuntime.connect({ client, version: 'echomq:3.1.0' });
    await echoConnects();
    expect(await client.get(SPEC_FENCE_KEY)).toBe('echomq:3.1.0');
    // The exact 3.0.0 peer is refused by the 3.1.0 stamp, which Echo did not write and did not raise.
    await expect(SpecRuntime.connect({ client })).rejects.toBeInstanceOf(SpecFenceError);
    await client.set(SPEC_FENCE_KEY, 'echomq:3.0.7');
    await echoConnects();
    expect(await client.get(SPEC_FENCE_KEY)).toBe('echomq:3.0.7');
  });

  it('another major: Echo refuses with VersionFenceError and writes nothing', async () => {
    await client.set(SPEC_FENCE_KEY, 'echomq:4.0.0');
    await expect(echoConnects()).rejects.toMatchObject({ name: 'VersionFenceError', code: 'version_major_mismatch', found: 'echomq:4.0.0' });
    await expect(echoConnects()).rejects.toBeInstanceOf(VersionFenceError);
    expect(await client.get(SPEC_FENCE_KEY)).toBe('echomq:4.0.0');
  });
});
