import type { Envelope } from '../envelope.js';
import { qualifiedNameOf } from '../ids.js';

/**
 * The key BullMQ gives child `echoId` of a parent: the one the flow recorded in the parent's
 * envelope, else the child read as a job of `childQueue` (the parent's own, unless known).
 */
export function keyOfChild(childQueue: string, parent: Envelope, echoId: string): string {
  const at = parent.e?.indexOf(echoId) ?? -1;
  const recorded = at >= 0 ? parent.k?.[at] : parent.k?.find((key) => key.endsWith(`:${echoId}`));
  return recorded ?? `${qualifiedNameOf(childQueue)}:${echoId}`;
}
