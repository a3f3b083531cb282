import { InvalidArgumentError, type transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { shapeFlow, type FlowChild, type FlowResult } from './flow-shape.js';
import { landCounted, result } from './flows.js';
import { givenIds } from './flow-retry.js';

/**
 * The parent's own script: it lands `local` (plain leaves of its queue) and counts them with
 * `remote` more to come, in one step; a negative `remote` with no leaves takes back a count.
 */
export type CountChildren = (local: readonly t.FlowChildInput[], remote: number) => Promise<{ readonly open: number } | 'duplicate'>;

/**
 * Children join job `parentId` of this queue, validated as a flow under it before any wire I/O.
 * Plain leaves in the parent's queue land with the count in one script (`count`); the rest (in
 * other queues, with children of their own, with a priority or a delay to be placed by, or with a
 * business key) land
 * after it, node by node, their count already taken, so a fast child can never release the parent
 * too soon. A child that did not land (a duplicate id, or a failure on the way) has its count
 * taken back.
 *
 * @throws InvalidArgumentError when a same-queue leaf's id already names a job (nothing added);
 *   the flow validation errors of `addFlow`; `count`'s errors.
 */
export async function fanOut<T>(ctx: QueueContext<T>, parentId: string, children: readonly FlowChild<T>[], count: CountChildren): Promise<FlowResult[]> {
  const root = shapeFlow(ctx.name, { parent: { payload: undefined as T, id: parentId }, children });
  const encode = (payload: unknown): string => ctx.codec.encode(payload as T);
  const local = root.children.filter((c) => c.children.length === 0 && c.queue === ctx.name && c.priority === 0 && c.delayMs === 0 && c.key === undefined);
  const remote = root.children.filter((c) => !local.includes(c));
  const verdict = await count(local.map((c) => ({ id: c.id, payload: encode(c.payload), policy: c.policy })), remote.length);
  if (verdict === 'duplicate') throw new InvalidArgumentError('children', 'a child id already names a job in this queue; nothing was added');
  const { missing, failure } = await landCounted(ctx, remote, { id: root.id, queue: ctx.name }, encode, givenIds(children));
  if (missing > 0) await count([], -missing);
  if (failure) throw failure.error;
  return root.children.map((node) => result(node));
}
