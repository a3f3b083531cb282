/**
 * The one adapter from Echo's real packages to what the scenarios drive: queues, workers, batch
 * workers and buses over one fenced `Connection`, plus what only the server can answer. Every
 * scenario reaches the packages through a target or through the handles it opened, so an API change
 * in `@echo/queue` or `@echo/bus` is fixed here and in the scenarios, nowhere else.
 */
import { Bus } from '@echo/bus';
import { Connection, execute, scripts, transition, type Arg, type ConnectOptions, type ScriptName } from '@echo/protocol/extend';
import { BatchWorker, Queue, Worker, type BatchHandler, type BatchWorkerOptions, type Handler, type QueueEvents, type WorkerOptions } from '@echo/queue';
import { mastersOf, scanNode, type ServerNode } from './server-nodes.js';

/** Handles on one queue name, each on a connection of its own. */
export interface QueuePool {
  readonly members: readonly Queue[];
  /** Closes every member's connection. */
  close(): Promise<void>;
}

/** What a conformance run drives: one server, through Echo's real queue, workers and bus. */
export interface ConformanceTarget {
  /** The fenced connection every queue and bus of the run shares. */
  readonly connection: Connection;
  /** Opens a queue on the shared connection. */
  openQueue(name: string): Promise<Queue>;
  startWorker(queue: Queue, handler: Handler<unknown>, options?: WorkerOptions): Promise<Worker>;
  startBatchWorker(queue: Queue, handler: BatchHandler<unknown>, options?: BatchWorkerOptions): Promise<BatchWorker>;
  /** Opens a queue's lifecycle-event listener, on a subscribed connection of its own. */
  openEvents(queue: Queue): Promise<QueueEvents>;
  /** Opens `size` handles on queue `name`, each on a connection of its own. */
  openPool(name: string, size: number): Promise<QueuePool>;
  /** Opens the bus of queue `name` on the shared connection. */
  openBus(name: string): Promise<Bus>;
  /** A new fenced connection that may subscribe and run commands on the same socket (RESP3). */
  openSubscriber(): Promise<Connection>;
  /** Runs a catalogued script by name, for the scenarios that judge a script's own reply. */
  runScript(name: ScriptName, keys: readonly string[], args?: readonly Arg[]): Promise<unknown>;
  /** `SCRIPT FLUSH` on every master, so the NOSCRIPT path runs next. */
  flushScripts(): Promise<void>;
  /** Every key matching `pattern` on every master (SCAN, never KEYS). */
  scanKeys(pattern: string): Promise<string[]>;
  /** Every master, each answering commands itself. */
  nodes(): readonly ServerNode[];
  /** Closes the connection when the target opened it; a connection handed in stays open. */
  close(): Promise<void>;
}

/** A connection to share (left open by {@link ConformanceTarget.close}), or where to connect. */
export type TargetOptions = { readonly connection: Connection } | { readonly connect: ConnectOptions | string };

/**
 * Builds the target over `options.connection`, or over a connection it opens from
 * `options.connect`. Run the suite with `strictKeys: true` so every script call is also checked
 * against its declared keys.
 *
 * @example
 * const target = await createTarget({ connect: { url: process.env.REDIS_URL, strictKeys: true } });
 * try { console.log(formatCounts(await runConformance(target))); } finally { await target.close(); }
 */
export async function createTarget(options: TargetOptions): Promise<ConformanceTarget> {
  const owned = !('connection' in options);
  const conn = 'connection' in options ? options.connection : await Connection.connect(options.connect);
  return {
    connection: conn,
    openQueue: (name) => Queue.open(name, { connection: conn }),
    startWorker: (queue, handler, workerOptions) => Worker.start(queue, handler, workerOptions),
    startBatchWorker: (queue, handler, workerOptions) => BatchWorker.start(queue, handler, workerOptions),
    openEvents: (queue) => queue.events(),
    async openPool(name, size) {
      const connections = await Promise.all(Array.from({ length: size }, () => conn.duplicate()));
      const members = await Promise.all(connections.map((connection) => Queue.open(name, { connection })));
      return {
        members,
        close: async () => {
          await Promise.all(connections.map((c) => c.close()));
        },
      };
    },
    openBus: (name) => Bus.open(name, { connection: conn }),
    openSubscriber: () => conn.duplicate(),
    // A raw reply on purpose: scenarios judge the wire itself, not a transition's typed reading of it.
    runScript: (name, keys, args = []) => execute(conn, transition({ script: scripts()[name], keys, args }, (reply) => reply)),
    async flushScripts() {
      for (const node of mastersOf(conn)) await node.command('SCRIPT', 'FLUSH');
    },
    async scanKeys(pattern) {
      return (await Promise.all(mastersOf(conn).map((node) => scanNode(node, pattern)))).flat();
    },
    nodes: () => mastersOf(conn),
    async close() {
      if (owned) await conn.close();
    },
  };
}
