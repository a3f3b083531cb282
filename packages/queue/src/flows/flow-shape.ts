import { assertBrandedId, assertDedupId, checkPriority, EchoError, InvalidArgumentError, mintId, queueKeys, type JobId } from '@echo/protocol/queue';
import { checkFlowChild, checkFlowParent, checkFlowSpec } from '../core/option-checks.js';

/** The deepest tree a flow may have, the root counting as level 1 (queue.md §11.2). */
export const MAX_FLOW_DEPTH = 8;

/** A flow's tree repeats an id. */
export class FlowCycleError extends EchoError {
  readonly id: string;

  constructor(id: string) {
    super('flow_cycle', `flow repeats job id ${id}`);
    this.id = id;
  }
}

/** A flow's tree is deeper than {@link MAX_FLOW_DEPTH}. */
export class FlowTooDeepError extends EchoError {
  readonly maxDepth: number;

  constructor(maxDepth: number) {
    super('flow_too_deep', `flow is deeper than ${maxDepth} levels`);
    this.maxDepth = maxDepth;
  }
}

/** One child of a flow node; `children` makes it a node of its own. */
export interface FlowChild<T> {
  readonly payload: T;
  /** Minted when omitted. */
  readonly id?: JobId | string;
  /** The child's queue; the parent's when omitted. */
  readonly queue?: string;
  /** The child's death fails the parent (the default). */
  readonly failParentOnFailure?: boolean;
  /** The child's death counts as done for the parent; wins over `failParentOnFailure`. */
  readonly ignoreDependencyOnFailure?: boolean;
  /**
   * [TS] The child's death lets the parent run at once, its other children still open (BullMQ's
   * `continueParentOnFailure`); the parent reads which child failed with
   * `queue.ignoredFailures(parentId)`. Wins over `failParentOnFailure`; exclusive with
   * `ignoreDependencyOnFailure`. A fail-parent sibling that dies later still fails the parent.
   */
  readonly continueParentOnFailure?: boolean;
  /** [TS] Its pending order, as `enqueue`'s (higher first); a node with children is ordered so when they release it. */
  readonly priority?: number;
  /** [TS] A leaf only: it waits this many ms (from admission) before it may run. */
  readonly delayMs?: number;
  /**
   * [TS] A business key, as `enqueue`'s `key`: `getJobByKey` finds the node, and the key is held
   * for an hour after the node ends. A key that already names a job is a duplicate node: it does
   * not land (a flow with one lands node by node; see `addFlow`).
   */
  readonly key?: string;
  readonly children?: readonly FlowChild<T>[];
}

/** A flow: a parent held until its children finish. */
export interface FlowSpec<T> {
  /** The parent; [TS] `priority` orders it, as `enqueue`'s, once its children release it. */
  readonly parent: { readonly payload: T; readonly id?: JobId | string; readonly priority?: number; /** [TS] As {@link FlowChild.key}. */ readonly key?: string };
  readonly children: readonly FlowChild<T>[];
}

/** A validated node: ids resolved, queue names checked, policy decided. */
export interface FlowNode {
  readonly id: JobId;
  readonly queue: string;
  readonly payload: unknown;
  readonly policy: 'fp' | 'id' | 'cp';
  /** [TS] Its priority, 0 when none was given. */
  readonly priority: number;
  /** [TS] A leaf's delay in ms, 0 when none was given. */
  readonly delayMs: number;
  /** [TS] Its business key, when it has one. */
  readonly key: string | undefined;
  readonly children: readonly FlowNode[];
}

/** What a landed flow answers: the node's id and its children's, nested. */
export interface FlowResult {
  readonly id: JobId;
  readonly queue: string;
  readonly children: readonly FlowResult[];
}

function resolve(id: JobId | string | undefined): JobId {
  if (id === undefined) return mintId('JOB');
  assertBrandedId(id);
  return id as JobId;
}

/**
 * Validates a whole flow before any wire I/O (queue.md §11.2): every id branded, every queue name
 * valid, no id twice, depth within the cap, no node without children. The JOB namespace is left
 * to the scripts (EMQKIND), exactly as for plain admission.
 */
export function shapeFlow<T>(queue: string, spec: FlowSpec<T>): FlowNode {
  queueKeys(queue);
  checkFlowSpec(spec);
  checkFlowParent(spec.parent);
  const seen = new Set<string>();
  const visit = (payload: unknown, id: JobId, q: string, policy: 'fp' | 'id' | 'cp', timing: { priority?: number | undefined; delayMs?: number | undefined; key?: string | undefined }, children: readonly FlowChild<T>[] | undefined, depth: number): FlowNode => {
    if (depth > MAX_FLOW_DEPTH) throw new FlowTooDeepError(MAX_FLOW_DEPTH);
    if (seen.has(id)) throw new FlowCycleError(id);
    seen.add(id);
    const kids = (children ?? []).map((c) => {
      checkFlowChild(c);
      const childQueue = c.queue ?? q;
      queueKeys(childQueue);
      if (c.continueParentOnFailure === true && c.ignoreDependencyOnFailure === true) throw new InvalidArgumentError('continueParentOnFailure', 'give continueParentOnFailure or ignoreDependencyOnFailure, not both');
      const policy = c.ignoreDependencyOnFailure === true ? 'id' : c.continueParentOnFailure === true ? 'cp' : 'fp';
      return visit(c.payload, resolve(c.id), childQueue, policy, c, c.children, depth + 1);
    });
    if (children !== undefined && kids.length === 0) throw new InvalidArgumentError('children', `node ${id} has an empty children list; it would be held for ever`);
    const delayMs = timing.delayMs ?? 0;
    if (!Number.isSafeInteger(delayMs) || delayMs < 0) throw new InvalidArgumentError('delayMs', 'must be an integer number of ms >= 0');
    // A held node is released by its last child, in a script that has no schedule to put it in.
    if (delayMs > 0 && kids.length > 0) throw new InvalidArgumentError('delayMs', `node ${id} has children: only a leaf may wait out a delay`);
    // Checked here, before any wire I/O: a node refused mid-landing would strand its parent.
    if (timing.key !== undefined) assertDedupId(timing.key);
    return { id, queue: q, payload, policy, priority: checkPriority(timing.priority), delayMs, key: timing.key, children: kids };
  };
  if (spec.children.length === 0) throw new InvalidArgumentError('children', 'a flow needs at least one child; its parent would be held for ever');
  return visit(spec.parent.payload, resolve(spec.parent.id), queue, 'fp', { priority: spec.parent.priority, key: spec.parent.key }, spec.children, 1);
}

/**
 * A flat flow whose children all share the parent's queue, none with a priority, a delay or a
 * business key, lands in one atomic script (`enqueue_flow` takes no per-node options); any other
 * lands node by node.
 */
export function isAtomic(root: FlowNode): boolean {
  const plain = (n: FlowNode): boolean => n.priority === 0 && n.delayMs === 0 && n.key === undefined;
  return plain(root) && root.children.every((c) => c.children.length === 0 && c.queue === root.queue && plain(c));
}
