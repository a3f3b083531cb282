import type { BrandedId, JobId } from '@echo/protocol';
import { CodecError } from '@echo/protocol';
import type { Codec } from './codec.js';

/** Where a job sits, as `state_lookup` answers (protocol.md §5.3). */
export type JobPosition = 'pending' | 'active' | 'scheduled' | 'dead' | 'awaiting_children' | 'unknown' | 'absent';

/** The values a row's `state` field takes. */
export type RowState = 'pending' | 'active' | 'scheduled' | 'dead' | 'awaiting_children';

/** How a flow child's failure reaches its parent: `fp` fails the parent, `id` ignores the dependency. */
export type ParentPolicy = 'fp' | 'id';

/** A flow child's link to its parent, read from the row. */
export interface ParentLink {
  readonly id: JobId;
  /** The parent's queue; equal to the child's own when they share one. */
  readonly queue: string;
  readonly policy: ParentPolicy;
}

/**
 * A job leased to this worker. `token` is the attempts value the claim minted; every settlement
 * carries it, so a worker whose lease lapsed and was re-claimed cannot settle the job any more.
 */
export interface ClaimedJob<T> {
  readonly id: JobId;
  /** The decoded payload; decoding happens on first read, so a bad payload fails the handler, not the claim. */
  readonly payload: T;
  /** The raw payload text as stored. */
  readonly rawPayload: string;
  /** The attempt number, 1 on the first claim; also the fencing token. */
  readonly attempts: number;
  /** The lane this job was claimed from, for lane jobs. */
  readonly group: BrandedId | undefined;
  /** Set when the job is a flow child. */
  readonly parent: ParentLink | undefined;
}

/** The job row as stored (protocol.md §5.1). Unknown fields are kept in `extra` and never interpreted. */
export interface JobRecord<T> {
  readonly id: JobId;
  /** The row's `state`; one of {@link RowState} when written through the protocol. */
  readonly state: string;
  readonly attempts: number;
  readonly payload: T;
  readonly rawPayload: string;
  readonly group: string | undefined;
  readonly lastError: string | undefined;
  readonly progress: string | undefined;
  readonly stalled: number;
  readonly parent: ParentLink | undefined;
  readonly extra: Readonly<Record<string, string>>;
}

/** Builds a claimed job whose payload decodes lazily. */
export function claimedJob<T>(
  codec: Codec<T>,
  fields: { id: JobId; raw: string; attempts: number; group: BrandedId | undefined; parent: ParentLink | undefined },
): ClaimedJob<T> {
  let decoded: { value: T } | undefined;
  return {
    id: fields.id,
    rawPayload: fields.raw,
    attempts: fields.attempts,
    group: fields.group,
    parent: fields.parent,
    get payload(): T {
      decoded ??= { value: codec.decode(fields.raw) };
      return decoded.value;
    },
  };
}

/** Reads the parent link fields; an unknown policy reads as `fp` (queue.md §3.4). */
export function parentLink(parent: unknown, parentQueue: unknown, policy: unknown, ownQueue: string): ParentLink | undefined {
  if (typeof parent !== 'string' || parent === '') return undefined;
  return {
    id: parent as JobId,
    queue: typeof parentQueue === 'string' && parentQueue !== '' ? parentQueue : ownQueue,
    policy: policy === 'id' ? 'id' : 'fp',
  };
}

const KNOWN_FIELDS = new Set(['state', 'attempts', 'payload', 'group', 'last_error', 'progress', 'stalled', 'parent', 'parent_queue', 'parent_policy']);

/** Turns an HGETALL reply into a typed record, keeping unknown fields aside. */
export function jobRecord<T>(id: JobId, queue: string, codec: Codec<T>, flat: Record<string, string>): JobRecord<T> {
  const extra: Record<string, string> = {};
  for (const [key, value] of Object.entries(flat)) if (!KNOWN_FIELDS.has(key)) extra[key] = value;
  const raw = flat.payload ?? '';
  let payload: T;
  try {
    payload = codec.decode(raw);
  } catch (error) {
    throw new CodecError(`job ${id}: ${(error as Error).message}`, { cause: error });
  }
  return {
    id,
    state: flat.state ?? 'unknown',
    attempts: Number(flat.attempts ?? '0'),
    payload,
    rawPayload: raw,
    group: flat.group,
    lastError: flat.last_error,
    progress: flat.progress,
    stalled: Number(flat.stalled ?? '0'),
    parent: parentLink(flat.parent, flat.parent_queue, flat.parent_policy, queue),
    extra,
  };
}
