import { ConnectionLostError } from './connection.js';
import { EchoError } from './echo-error.js';
import { ServerError } from './wire.js';

/**
 * The server is at its `maxmemory` under `noeviction` and refused a write (`OOM command not
 * allowed`). A transition refused this way changed nothing: Redis refuses a script at its first
 * write, so either none of its writes ran or all of them did. Safe to retry once memory is freed
 * (jobs completed, streams trimmed, or `maxmemory` raised).
 */
export class OutOfMemoryError extends ServerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options, 'out_of_memory');
  }
}

/**
 * The server may evict keys (`maxmemory-policy` is not `noeviction`): an evicted job row is a lost
 * job, an evicted lease or dedup key a job run twice. Raised at connect, before anything is
 * written, and by every call of a connection whose reconnect found such a server, unless the
 * connection was told to only warn (`evictionPolicy: 'warn'`) or not to check (`'allow'`).
 */
export class EvictionPolicyError extends EchoError {
  /** The `maxmemory_policy` the server reported. */
  readonly policy: string;
  /** The node that reported it, `host:port`. */
  readonly node: string;

  constructor(policy: string, node: string) {
    super(
      'eviction_policy',
      `${node} has maxmemory-policy ${policy}: Redis may evict Echo's keys (a job row evicted is a job lost). ` +
        `Set maxmemory-policy noeviction, or connect with evictionPolicy: 'warn' to run anyway.`,
    );
    this.policy = policy;
    this.node = node;
  }
}

/**
 * A write was applied on the primary, but fewer replicas than required confirmed it within the
 * timeout (`WAIT`). The write is not undone: it stands on the primary and will reach its replicas
 * unless the primary fails first, in which case a promoted replica may not have it. Retrying an
 * idempotent call (an enqueue by id or `dedupId`) is safe and waits for replication again.
 */
export class NotReplicatedError extends EchoError {
  /** Replicas that confirmed the write in time (0 up to `required - 1`). */
  readonly acknowledged: number;
  /** Replicas the call asked for. */
  readonly required: number;
  /** How long the call waited. */
  readonly timeoutMs: number;

  constructor(acknowledged: number, required: number, timeoutMs: number) {
    super('not_replicated', `${acknowledged} of ${required} replicas confirmed the write within ${timeoutMs} ms; it stands on the primary only`);
    this.acknowledged = acknowledged;
    this.required = required;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The server refused a write because fewer replicas than its `min-replicas-to-write` are attached
 * and within `min-replicas-max-lag` seconds (`NOREPLICAS`). Nothing ran: Redis refuses a script at
 * its first write. Under Sentinel this is what a primary that was failed over answers once its
 * replica has been promoted, instead of accepting writes the promotion will undo. A
 * {@link ConnectionLostError}, like a write that reached a demoted primary (`READONLY`): retry
 * logic written for a dropped socket covers it, and a worker resends a settlement refused this way
 * until it reaches the primary. Unlike a dropped socket, the call is known not to have run.
 */
export class NotEnoughReplicasError extends ConnectionLostError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options, 'not_enough_replicas');
  }
}
