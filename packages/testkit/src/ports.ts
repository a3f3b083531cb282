import { createServer } from 'node:net';

/** Every server the testkit starts listens on loopback only, so tests never expose a port. */
export const LOOPBACK = '127.0.0.1';

/** Redis Cluster puts its node-to-node bus on the client port plus this offset. */
export const CLUSTER_BUS_OFFSET = 10_000;

const MAX_PORT = 65_535;

function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(undefined));
    probe.listen({ port, host: LOOPBACK, exclusive: true }, () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      probe.close(() => resolve(bound));
    });
  });
}

/**
 * Asks the OS for a free loopback port. `redis-server --port 0` does not do this (it disables
 * TCP instead), so the port is chosen here, released, and handed to the server; the small race
 * that opens is covered by the caller retrying with a fresh port when the bind fails.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await listenOnce(0);
    if (port !== undefined) return port;
  }
  throw new Error('Could not obtain a free loopback port from the OS.');
}

/** Whether `port` can be bound on loopback right now. */
export async function isPortFree(port: number): Promise<boolean> {
  return (await listenOnce(port)) === port;
}

/**
 * A free port `p` whose cluster bus port `p + 10000` is free too: a cluster node binds both and
 * aborts if either is taken.
 */
export async function freeClusterPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort();
    if (port + CLUSTER_BUS_OFFSET > MAX_PORT) continue;
    if (await isPortFree(port + CLUSTER_BUS_OFFSET)) return port;
  }
  throw new Error(`Could not find a free loopback port p with p+${CLUSTER_BUS_OFFSET} free as well.`);
}
