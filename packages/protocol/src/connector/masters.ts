import { Cluster, type Redis } from 'ioredis';
import type { Arg } from './call-shape.js';

/** One master of the server or cluster, answering plain commands itself (per-node admin work). */
export interface MasterNode {
  /** `host:port`. */
  readonly address: string;
  /** Sends a command to this node only, through the connection's gate and error mapping. */
  command(name: string, ...args: Arg[]): Promise<unknown>;
}

/** Every master of `client` (itself, when standalone), each sending through `send`. */
export function masterNodes(client: Redis | Cluster, send: (node: Redis, name: string, args: Arg[]) => Promise<unknown>): MasterNode[] {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  return nodes.map((node) => ({
    address: `${String(node.options.host)}:${String(node.options.port)}`,
    command: (name, ...args) => send(node, name, args),
  }));
}
