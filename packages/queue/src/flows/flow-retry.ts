import { execute, InvalidArgumentError, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import type { FlowChild, FlowNode } from './flow-shape.js';

/**
 * The ids the caller gave the children of a flow, at every depth. The others were minted for this
 * call, so no earlier call can have landed them: a retry names only given ids.
 */
export function givenIds<T>(children: readonly FlowChild<T>[], into = new Set<string>()): ReadonlySet<string> {
  for (const child of children) {
    if (child.id !== undefined) into.add(child.id);
    if (child.children !== undefined) givenIds(child.children, into);
  }
  return into;
}

/** True when every node of the tree names a job that exists (in its own queue). */
export async function everyNodeExists<T>(ctx: QueueContext<T>, root: FlowNode): Promise<boolean> {
  const all: FlowNode[] = [];
  const walk = (node: FlowNode): void => {
    all.push(node);
    node.children.forEach(walk);
  };
  walk(root);
  const states = await Promise.all(all.map((node) => execute(ctx.conn, t.stateLookup({ queue: node.queue, id: node.id }))));
  return states.every((state) => state !== 'absent');
}

/** A flow refused because an id already names a job and the call is not a retry of that flow. */
export function collision(detail: string): InvalidArgumentError {
  return new InvalidArgumentError('flow', `${detail}; nothing more was added (a retry of a flow gives every node its id)`);
}

/**
 * A node held before (its hold answered duplicate) may have its children landed only when they
 * carry the caller's ids, that is when the call retries the flow that held it: a minted child would
 * link a job its parent never counted, and the parent would be released before it ran.
 */
export function checkRetryChildren(node: FlowNode, given: ReadonlySet<string>): void {
  const minted = node.children.find((child) => !given.has(child.id));
  if (minted !== undefined) throw collision(`job ${node.id} already exists in ${node.queue} and child ${minted.id} was not given an id`);
}
