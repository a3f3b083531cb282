import type { JobId } from '../ids/branded.js';
import { isBrandedId } from '../ids/guards.js';
import { isQueueName } from '../keys/names.js';

/**
 * A cross-queue flow signal as it sits in a child queue's `flow:outbox` (queue.md §11.5), written by
 * `complete` (`parentQueue \0 parentId \0 childId \0 result`) and by `retry`, `sweep_stalled` and
 * `flow_reemit` (`\0 fail \0 parentQueue \0 parentId \0 childId \0 policy \0 error`).
 */
export type OutboxEntry =
  | { readonly kind: 'complete'; readonly parentQueue: string; readonly parentId: JobId; readonly childId: JobId; readonly result: string }
  | {
      readonly kind: 'fail';
      readonly parentQueue: string;
      readonly parentId: JobId;
      readonly childId: JobId;
      readonly policy: 'fp' | 'id';
      readonly error: string;
    };

const NUL = '\0';

/** Splits off `n` NUL-separated fields; the remainder (which may hold NULs) is the last field. */
function fields(entry: string, n: number): string[] | undefined {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < n; i++) {
    const at = entry.indexOf(NUL, from);
    if (at === -1) return undefined;
    out.push(entry.slice(from, at));
    from = at + 1;
  }
  out.push(entry.slice(from));
  return out;
}

/**
 * Parses one outbox entry; `undefined` for a malformed one (which blocks its outbox until removed).
 * A policy other than `id` reads as `fp`, as queue.md §3.4 reads an unknown one.
 */
export function parseOutboxEntry(entry: string): OutboxEntry | undefined {
  if (entry.startsWith(NUL)) {
    const f = fields(entry, 6);
    if (f?.[1] !== 'fail') return undefined;
    const [, , parentQueue = '', parentId = '', childId = '', policy = '', error = ''] = f;
    if (!isQueueName(parentQueue) || !isBrandedId(parentId) || !isBrandedId(childId)) return undefined;
    return { kind: 'fail', parentQueue, parentId: parentId as JobId, childId: childId as JobId, policy: policy === 'id' ? 'id' : 'fp', error };
  }
  const f = fields(entry, 3);
  if (!f) return undefined;
  const [parentQueue = '', parentId = '', childId = '', result = ''] = f;
  if (!isQueueName(parentQueue) || !isBrandedId(parentId) || !isBrandedId(childId)) return undefined;
  return { kind: 'complete', parentQueue, parentId: parentId as JobId, childId: childId as JobId, result };
}
