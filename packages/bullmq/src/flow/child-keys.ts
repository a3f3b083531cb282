import { qualifiedNameOf } from '../ids.js';

/**
 * The key BullMQ gives child `echoId` of a parent: the one the flow recorded in the parent's
 * envelope, else the child read as a job of `childQueue` (the parent's own, unless known).
 */
export function keyOfChild(childQueue: string, children: readonly string[], echoId: string): string {
  return children.find((key) => key.endsWith(`:${echoId}`)) ?? `${qualifiedNameOf(childQueue)}:${echoId}`;
}
