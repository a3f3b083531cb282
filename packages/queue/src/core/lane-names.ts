import { createHash } from 'node:crypto';
import { encodeId, InvalidArgumentError, isBrandedId, type BrandedId } from '@echo/protocol/queue';

/** The namespace of a lane group derived from a name. */
const LANE_NAMESPACE = 'GRP';

/** The longest lane name admitted, in characters. */
export const MAX_LANE_NAME = 256;

const MASK_63 = (1n << 63n) - 1n;

/**
 * The group id a lane name stands for on the wire. The protocol keys a lane by a branded id
 * (queue.md §5); users name lanes by what they have (`'tenantA'`, `'acme-corp'`). A name that is
 * already a branded id is used as it is; any other name maps to a `GRP` id derived from its SHA-256
 * (63 bits), so every process and runtime that knows the rule reaches the same lane, and no lookup
 * or write stands between a name and its lane.
 * @throws InvalidArgumentError for a name that is not a string of 1 to {@link MAX_LANE_NAME} characters.
 */
export function laneGroupId(name: string): BrandedId {
  if (isBrandedId(name)) return name;
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_LANE_NAME) {
    throw new InvalidArgumentError('lane', `must be a name of 1 to ${String(MAX_LANE_NAME)} characters (a tenant id, a customer name…) or a branded id`);
  }
  const digest = createHash('sha256').update(name, 'utf8').digest();
  return encodeId(LANE_NAMESPACE, digest.readBigUInt64BE(0) & MASK_63);
}

/**
 * The name to show for a job's lane: the name its producer (or `laneReassign`) gave it, from the
 * row's [TS] `lane` field, while that name still derives the job's group; else the group id itself
 * (a lane named by id, or a row written by another runtime that keeps no name).
 */
export function laneNameOf(group: string | undefined, lane: string | undefined): string | undefined {
  if (group === undefined) return undefined;
  if (lane !== undefined && laneGroupId(lane) === group) return lane;
  return group;
}
