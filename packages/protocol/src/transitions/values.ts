import { InvalidArgumentError } from '../errors/validation.js';
import type { JobId } from '../ids/branded.js';
import { assertBrandedId } from '../ids/guards.js';
import type { ParentPolicy } from '../records.js';

/** A whole number of at least `min`, or a typed refusal before anything is sent. */
export function whole(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}`);
  return value;
}

/** A fencing token (the attempts value a claim minted) as the scripts compare it: decimal text. */
export function tokenArg(token: number): string {
  if (!Number.isSafeInteger(token) || token < 0) throw new InvalidArgumentError('token', 'must be a non-negative integer');
  return String(token);
}

/** A branded id, checked; a wrong namespace is the script's to refuse, so it fails the same way everywhere. */
export function idArg(id: string): JobId {
  assertBrandedId(id);
  return id as JobId;
}

/** A flow child's link to its parent, as the row and the claim reply carry it (queue.md §11). */
export interface FlowLink {
  readonly id: JobId;
  /** The parent's queue; equal to the child's own when they share one. */
  readonly queue: string;
  readonly policy: ParentPolicy;
}

/** Reads the parent link fields; an unknown policy reads as `fp` (queue.md §3.4). */
export function flowLink(parent: unknown, parentQueue: unknown, policy: unknown, ownQueue: string): FlowLink | undefined {
  if (typeof parent !== 'string' || parent === '') return undefined;
  return {
    id: parent as JobId,
    queue: typeof parentQueue === 'string' && parentQueue !== '' ? parentQueue : ownQueue,
    policy: policy === 'id' ? 'id' : 'fp',
  };
}

/** An integer reply. */
export function int(reply: unknown): number {
  return Number(reply);
}

/** A list-of-integers reply. */
export function ints(reply: unknown): number[] {
  return (reply as unknown[]).map(Number);
}

/** A list-of-strings reply. */
export function strings<S extends string = string>(reply: unknown): S[] {
  return reply as S[];
}

/** Replies 1 / 0 as the admission verdict. */
export function admitted(reply: unknown): 'enqueued' | 'duplicate' {
  return Number(reply) === 1 ? 'enqueued' : 'duplicate';
}
