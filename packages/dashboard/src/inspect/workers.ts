import { PermissionError, type Connection } from '@echo/protocol';

/** The `CLIENT SETNAME`s of the connections a Worker and a BatchWorker park on. */
const WORKER_NAMES = new Set(['echo-worker-wake', 'echo-batch-wake']);

/**
 * Worker processes connected to the server, counted by the names of their wake connections in
 * `CLIENT LIST` on every master. The server does not say which queue a blocked client waits on, so
 * this is a server-wide figure. `undefined` when the user may not run `CLIENT LIST`.
 */
export async function workerConnections(conn: Connection): Promise<number | undefined> {
  try {
    const lists = await Promise.all(conn.masters().map((node) => node.command('CLIENT', 'LIST', 'TYPE', 'normal')));
    let count = 0;
    for (const list of lists) {
      for (const line of String(list).split('\n')) {
        const name = / name=(\S*)/.exec(line)?.[1];
        if (name !== undefined && WORKER_NAMES.has(name)) count++;
      }
    }
    return count;
  } catch (error) {
    if (error instanceof PermissionError) return undefined;
    throw error;
  }
}
