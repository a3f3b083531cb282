import { InvalidArgumentError, NotReplicatedError, reads, type Connection, type QueueKeys } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import type { EnqueueManyResult } from './admission.js';

/**
 * How far an admission must have travelled before `enqueue` answers. `primary` (the default): the
 * primary applied it; replication to its replicas is asynchronous, so a primary that crashes in
 * the next moment can take the last admissions with it when a replica is promoted. `replicated`:
 * also confirmed by one replica (`WAIT 1`, 1000 ms). Or name the replica count and the wait.
 */
export type Durability = 'primary' | 'replicated' | { readonly replicas: number; readonly timeoutMs?: number };

/** A resolved `replicated` policy. */
export interface ReplicationPolicy {
  readonly replicas: number;
  readonly timeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 1_000;

/** Checks the option at open, so a bad value fails before any admission. */
export function resolveDurability(durability: Durability | undefined): ReplicationPolicy | undefined {
  if (durability === undefined || durability === 'primary') return undefined;
  if (durability === 'replicated') return { replicas: 1, timeoutMs: DEFAULT_TIMEOUT_MS };
  if (typeof durability !== 'object') throw new InvalidArgumentError('durability', "must be 'primary', 'replicated' or { replicas, timeoutMs }");
  const { replicas, timeoutMs = DEFAULT_TIMEOUT_MS } = durability;
  if (!Number.isInteger(replicas) || replicas < 1) throw new InvalidArgumentError('durability.replicas', 'must be a positive integer');
  // WAIT with 0 blocks until the replicas answer, however long: a dead replica would hang the producer.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new InvalidArgumentError('durability.timeoutMs', 'must be a positive integer');
  return { replicas, timeoutMs };
}

/**
 * Waits until the replicas confirmed every write this connection sent so far (`WAIT`), the
 * admission just acknowledged included. `WAIT` counts the writes of the socket it arrives on, so
 * on a cluster it is pipelined behind a read of the queue's own key, which routes it to the
 * queue's master. A socket replaced between the admission and the `WAIT` would confirm nothing it
 * sent: a reconnect in between counts as not replicated.
 *
 * @throws NotReplicatedError when fewer replicas than asked confirmed in time (a partial ack
 *   included): the admission stands on the primary; retrying it by id or `dedupId` is safe.
 */
export async function confirmReplicated(conn: Connection, keys: QueueKeys, policy: ReplicationPolicy, reconnectsBefore: number): Promise<void> {
  const wait = reads.queue.replicated(policy);
  let acknowledged: number;
  if (conn.isCluster) {
    const [, waited] = await reads.sendReads(conn, [reads.queue.probe({ keys }), wait]);
    if (!waited.ok) throw waited.error;
    acknowledged = waited.value;
  } else {
    acknowledged = await reads.sendRead(conn, wait);
  }
  if (conn.stats().reconnects !== reconnectsBefore) acknowledged = 0;
  if (acknowledged < policy.replicas) throw new NotReplicatedError(acknowledged, policy.replicas, policy.timeoutMs);
}

/**
 * Runs an admission, then waits for its replication when the queue asks for it; `shortfall`
 * turns a failed confirmation into the answer instead of an exception. Without a policy it is the
 * admission alone: the connection's stats are read only when a `WAIT` will follow.
 */
export async function admitDurably<T, R>(ctx: QueueContext<T>, policy: ReplicationPolicy | undefined, admit: () => Promise<R>, shortfall?: (result: R, error: Error) => R): Promise<R> {
  if (policy === undefined) return admit();
  const reconnects = ctx.conn.stats().reconnects;
  const result = await admit();
  try {
    await confirmReplicated(ctx.conn, ctx.keys, policy, reconnects);
  } catch (error) {
    if (shortfall === undefined || !(error instanceof Error)) throw error;
    return shortfall(result, error);
  }
  return result;
}

/**
 * A batch's verdicts after a failed confirmation: the admitted items become failures carrying the
 * error ({@link NotReplicatedError}, or a lost connection) (their ids are kept, so resending them is an idempotent retry); items
 * refused before stay as they were.
 */
export function unconfirmed(results: EnqueueManyResult[], error: Error): EnqueueManyResult[] {
  return results.map((r) => (r.status === 'failed' ? r : { status: 'failed', id: r.id, error }));
}
