import { PermissionError, reads, type Connection } from '@echo/protocol/extend';

/** The `CLIENT SETNAME`s of the connections a Worker and a BatchWorker park on. */
const WORKER_NAMES = new Set(['echo-worker-wake', 'echo-batch-wake']);

/**
 * Worker processes connected to the server, counted by the names of their wake connections in
 * `CLIENT LIST` on every master. The server does not say which queue a blocked client waits on, so
 * this is a server-wide figure. `undefined` when the user may not run `CLIENT LIST`.
 */
export async function workerConnections(conn: Connection): Promise<number | undefined> {
  try {
    const list = reads.clientList({ type: 'normal' });
    const perNode = await Promise.all(conn.masters().map((node) => reads.sendRead(node, list)));
    let count = 0;
    for (const clients of perNode) for (const client of clients) if (WORKER_NAMES.has(client.name)) count++;
    return count;
  } catch (error) {
    if (error instanceof PermissionError) return undefined;
    throw error;
  }
}
