import { InvalidArgumentError } from '@echo/protocol/queue';

/** The batch shaper's decision (queue.md §7). */
export type ShapeDecision = { readonly action: 'flush'; readonly size: number } | { readonly action: 'wait' };

/**
 * Decides whether a batch worker should claim now: at `minSize` waiting jobs, or once `timeoutMs`
 * has passed with at least one waiting. Pure, with the clock supplied by the caller.
 */
export function decideBatch(depth: number, elapsedMs: number, minSize: number, timeoutMs: number): ShapeDecision {
  if (!Number.isInteger(minSize) || minSize <= 0) throw new InvalidArgumentError('minSize', 'must be a positive integer');
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new InvalidArgumentError('timeoutMs', 'must be a positive integer');
  if (depth >= minSize) return { action: 'flush', size: depth };
  if (elapsedMs >= timeoutMs && depth > 0) return { action: 'flush', size: depth };
  return { action: 'wait' };
}
