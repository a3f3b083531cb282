import { Connection, queueKeys, type ConnectOptions } from '@echo/protocol/queue';
import { jsonCodec, type Codec } from './core/codec.js';
import type { QueueContext } from './core/context.js';
import * as checks from './core/option-checks.js';
import { resolveDurability, type Durability, type ReplicationPolicy } from './producer/durability.js';
import { limitedCodec, resolvePayloadLimit } from './producer/payload-limit.js';
import type { KeepPolicy } from './reads/finished.js';

/** How a {@link Queue} reaches its server and encodes payloads. */
export interface QueueOptions<T> {
  /** An open connection to share; the queue does not close it. */
  readonly connection?: Connection;
  /** Where to connect when no `connection` is given (a URL or full options); the queue owns it. */
  readonly connect?: ConnectOptions | string;
  /** Payload codec; JSON by default. A queue and its workers must use the same one. */
  readonly codec?: Codec<T>;
  /**
   * When an admission counts as done (`enqueue`, `enqueueMany`, `enqueueInLane`). Default
   * `primary`. With `replicated`, each call also waits (`WAIT`) until a replica confirmed it, and
   * fails with `NotReplicatedError` when none did in time; the job then stands on the primary, and
   * resending it by id or `dedupId` is safe. Costs one round trip per call; needs `+wait` under an ACL.
   */
  readonly durability?: Durability;
  /**
   * The largest encoded payload admitted, in UTF-8 bytes. Default 1 MiB
   * (`DEFAULT_MAX_PAYLOAD_BYTES`); `Infinity` turns the check off. Over it, the call throws
   * `PayloadTooLargeError` and writes nothing.
   */
  readonly maxPayloadBytes?: number;
  /**
   * [TS] Finished-job retention, written into the queue's meta at open (as {@link Queue.setRetention}
   * does) so every process settles by it. Omitted: the queue's stored policy stands; a queue never
   * given one keeps no completed job and the newest 10,000 dead ones.
   */
  readonly keep?: KeepPolicy;
}

/** What `Queue.open` makes of a name and its options before the queue exists. */
export interface QueueRuntime<T> {
  /** What every verb family speaks through. */
  readonly ctx: QueueContext<T>;
  /** True when the queue opened the connection itself, and so closes it. */
  readonly ownsConnection: boolean;
  /** The `WAIT` each admission is followed by; `undefined` under `durability: 'primary'`. */
  readonly replication: ReplicationPolicy | undefined;
}

/**
 * Checks a queue's name and options, then connects unless a connection is shared, so a bad name
 * or option fails before any socket opens.
 * @throws InvalidNameError, InvalidArgumentError, ConnectError, VersionFenceError
 */
export async function openRuntime<T>(name: string, options: QueueOptions<T>): Promise<QueueRuntime<T>> {
  const keys = queueKeys(name);
  checks.checkQueueOptions(options);
  checks.checkSharedConnection(options);
  checks.checkKeepPolicy(options.keep);
  const replication = resolveDurability(options.durability);
  const codec = limitedCodec(options.codec ?? jsonCodec<T>(), resolvePayloadLimit(options.maxPayloadBytes));
  const conn = options.connection ?? (await Connection.connect(options.connect ?? {}));
  return { ctx: { name, keys, conn, codec }, ownsConnection: options.connection === undefined, replication };
}
