import { strictOptions } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import type { JobNode } from '../flow-producer.js';
import { Job } from '../job.js';
import { recordOfJobId } from '../job-lookup.js';

/** `FlowProducer.getFlow`'s options, as BullMQ names them. */
export interface NodeOpts {
  /** The node's queue. */
  readonly queueName: string;
  /** The node's job id. */
  readonly id: string;
  /** The node's key prefix; default the producer's. */
  readonly prefix?: string;
  /** How many levels to read, the node counting as one (default 10). */
  readonly depth?: number;
  /** At most this many children of each kind per node (default 20). */
  readonly maxChildren?: number;
}

/** Opens the Echo queue of a BullMQ queue under a prefix. */
export type OpenQueue = (queueName: string, prefix: string | undefined) => Promise<EchoQueue<Envelope>>;

const checkNodeOpts = strictOptions('getFlow options', { known: ['queueName', 'id', 'prefix', 'depth', 'maxChildren'] });

/** BullMQ's defaults for how far `getFlow` reads. */
const DEPTH = 10;
const MAX_CHILDREN = 20;

/**
 * Reads a flow back from node `opts.id`: the job, then its children (completed, open, ignored and
 * failed, at most `maxChildren` of each) down to `depth` levels, as BullMQ's `getFlow` answers it.
 * A node that no longer exists is left out (undefined at the root).
 */
export async function getFlow(open: OpenQueue, opts: NodeOpts): Promise<JobNode | undefined> {
  checkNodeOpts(opts);
  return readNode(open, opts.queueName, opts.prefix, opts.id, opts.depth ?? DEPTH, opts.maxChildren ?? MAX_CHILDREN);
}

async function readNode(open: OpenQueue, queueName: string, prefix: string | undefined, id: string, depth: number, maxChildren: number): Promise<JobNode | undefined> {
  const queue = await open(queueName, prefix);
  const record = await recordOfJobId(queue, id);
  if (record === undefined) return undefined;
  const job = Job.fromRecord(queue, record);
  if (depth <= 1) return { job };
  const { processed, unprocessed, failed, ignored } = await job.getDependencies();
  const keys = [...Object.keys(processed).slice(0, maxChildren), ...unprocessed.slice(0, maxChildren), ...failed.slice(0, maxChildren), ...Object.keys(ignored).slice(0, maxChildren)];
  if (keys.length === 0) return { job };
  const children: JobNode[] = [];
  for (const key of keys) {
    // BullMQ's child key is `<prefix>:<queue>:<id>`; a prefix may itself hold a `:`.
    const idAt = key.lastIndexOf(':');
    const queueAt = key.lastIndexOf(':', idAt - 1);
    const child = await readNode(open, key.slice(queueAt + 1, idAt), key.slice(0, queueAt), key.slice(idAt + 1), depth - 1, maxChildren);
    if (child !== undefined) children.push(child);
  }
  return { job, children };
}
