/**
 * A conformance target built from the real `Queue`, `Worker` and `BatchWorker` over one fenced
 * `Connection`. It has no `openBus` (the bus is not a dependency of this package): the stream
 * scenarios and the resubscribe drill run in `@echo/bus`'s own conformance test instead.
 */
import { mintId, SCRIPT_NAMES, scripts, type Connection, type Script, type ScriptName } from '@echo/protocol';
// The lint's deep-import pattern predates declared subpath exports; this one is in testkit's `exports` map.
import { serverHarness, type ConformanceTarget, type QueueLike } from '@echo/testkit/conformance';
import { BatchWorker, CancelToken, decideBatch, partitionBatch, Queue, Worker } from '../../src/index.js';

const NAMES = new Set<string>(SCRIPT_NAMES);

/** The catalogued script of that name; an unknown name is a scenario bug, reported as such. */
function scriptNamed(name: string): Script {
  if (!NAMES.has(name)) throw new RangeError(`no catalogued script named ${JSON.stringify(name)}`);
  return scripts()[name as ScriptName];
}

function realQueue(queue: QueueLike): Queue {
  if (!(queue instanceof Queue)) throw new TypeError('the conformance target only drives queues it opened itself');
  return queue;
}

/** The queue-side target: queues, workers, batch workers, a pool of connections and the host kit. */
export function queueTarget(conn: Connection): ConformanceTarget {
  return {
    ...serverHarness(conn),
    wire: {
      command: (name, ...args) => conn.command(name, ...args),
      run: (name, keys, args = []) => conn.run(scriptNamed(name), keys, args),
      stats: () => conn.stats(),
    },
    mintId: (namespace) => mintId(namespace),
    openQueue: (name) => Queue.open(name, { connection: conn }),
    startWorker: (queue, handler, options = {}) => Worker.start(realQueue(queue), handler, options),
    startBatchWorker: (queue, handler, options = {}) => BatchWorker.start(realQueue(queue), handler, options),
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
    host: {
      cancelToken: () => new CancelToken(),
      decideBatch,
      partitionBatch: (ids, settled) => partitionBatch(ids, settled),
    },
  };
}
