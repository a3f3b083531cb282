/**
 * Runs Echo's conformance suite (conformance.md) against a live server through the real Queue,
 * workers, Bus and Connection, and prints the spec's report: one `CONF` line per scenario, then
 * `CONFORMANCE <passed>/<run>` and a plain tally line. Exits non-zero on any failure.
 *
 *   pnpm conformance                                        # throwaway standalone server
 *   pnpm conformance -- --cluster                           # throwaway 3-master cluster
 *   REDIS_URL=redis://127.0.0.1:6379 pnpm conformance       # your server
 *   ECHO_CLUSTER_SEEDS=127.0.0.1:7000,127.0.0.1:7001 pnpm conformance
 *   pnpm conformance -- --only fence,stale                  # a few scenarios by name
 */
import { Bus, xaddId } from '@echo/bus';
import { Connection, IdMinter, idUnixMs, mintId, SCRIPT_NAMES, scripts, type ConnectOptions, type ScriptName } from '@echo/protocol';
import { BatchWorker, CancelToken, decideBatch, partitionBatch, Queue, Worker } from '@echo/queue';
import { startCluster, startRedis } from '@echo/testkit';
// The lint's deep-import pattern predates declared subpath exports; this one is in testkit's `exports` map.
import {
  formatCounts,
  formatResult,
  formatSummary,
  runConformance,
  serverHarness,
  type ConformanceTarget,
  type QueueLike,
} from '@echo/testkit/conformance';

const NAMES = new Set<string>(SCRIPT_NAMES);

function realQueue(queue: QueueLike): Queue {
  if (!(queue instanceof Queue)) throw new TypeError('the conformance target only drives queues it opened itself');
  return queue;
}

/** Every capability the suite knows, from the real packages over one fenced connection. */
function target(conn: Connection): ConformanceTarget {
  return {
    ...serverHarness(conn),
    wire: {
      command: (name, ...args) => conn.command(name, ...args),
      run: (name, keys, args = []) => {
        if (!NAMES.has(name)) throw new RangeError(`no catalogued script named ${JSON.stringify(name)}`);
        return conn.run(scripts()[name as ScriptName], keys, args);
      },
      stats: () => conn.stats(),
    },
    mintId: (namespace) => mintId(namespace),
    openQueue: (name) => Queue.open(name, { connection: conn }),
    startWorker: (queue, handler, options = {}) => Worker.start(realQueue(queue), handler, options),
    startBatchWorker: (queue, handler, options = {}) => BatchWorker.start(realQueue(queue), handler, options),
    async openPool(name, size) {
      const connections = await Promise.all(Array.from({ length: size }, () => conn.duplicate()));
      const members = await Promise.all(connections.map((connection) => Queue.open(name, { connection })));
      const close = async (): Promise<void> => {
        await Promise.all(connections.map((c) => c.close()));
      };
      return { members, close };
    },
    openBus: (name) => Bus.open(name, { connection: conn }),
    openSubscriber: () => conn.duplicate(),
    host: { cancelToken: () => new CancelToken(), decideBatch, partitionBatch: (ids, settled) => partitionBatch(ids, settled) },
    ids: { minter: (options) => new IdMinter(options), unixMs: idUnixMs, xaddId },
  };
}

function seeds(list: string): { host: string; port: number }[] {
  return list.split(',').map((seed) => {
    const at = seed.lastIndexOf(':');
    const port = Number(seed.slice(at + 1));
    if (at <= 0 || !Number.isInteger(port)) throw new Error(`ECHO_CLUSTER_SEEDS: ${JSON.stringify(seed)} is not host:port`);
    return { host: seed.slice(0, at), port };
  });
}

/** Where to connect, and what to stop afterwards when the server was started here. */
async function server(cluster: boolean): Promise<{ where: string; options: ConnectOptions; stop: () => Promise<void> }> {
  const none = (): Promise<void> => Promise.resolve();
  const seedList = process.env.ECHO_CLUSTER_SEEDS;
  if (seedList !== undefined && seedList !== '') return { where: `cluster ${seedList}`, options: { cluster: seeds(seedList), strictKeys: true }, stop: none };
  const url = process.env.REDIS_URL;
  if (url !== undefined && url !== '') return { where: url, options: { url, strictKeys: true }, stop: none };
  if (cluster) {
    const started = await startCluster({ masters: 3 });
    return { where: 'a throwaway 3-master cluster', options: { cluster: started.seeds, strictKeys: true }, stop: () => started.stop() };
  }
  const started = await startRedis();
  return { where: `a throwaway server (${started.url})`, options: { url: started.url, strictKeys: true }, stop: () => started.stop() };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  const onlyAt = args.indexOf('--only');
  const only = onlyAt === -1 ? undefined : (args[onlyAt + 1] ?? '').split(',').filter((name) => name !== '');
  const { where, options, stop } = await server(args.includes('--cluster'));
  const started = performance.now();
  try {
    console.error(`Echo conformance against ${where}`);
    const conn = await Connection.connect(options);
    try {
      const run = await runConformance(target(conn), { ...(only === undefined ? {} : { only }), onResult: (r) => console.log(formatResult(r)) });
      console.log(formatSummary(run));
      console.log(formatCounts(run));
      console.error(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
      return run.failed === 0 ? 0 : 1;
    } finally {
      await conn.close();
    }
  } finally {
    await stop();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 2;
  },
);
