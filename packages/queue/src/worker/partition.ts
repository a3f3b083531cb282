/** A batch member's verdict from the handler. */
export type BatchVerdict = 'ok' | { readonly error: string } | { readonly delay: number };

/** What settling a member returned: `ok`, a retry outcome, or a fencing failure. */
export type SettleOutcome = 'ok' | 'scheduled' | 'dead' | 'stale' | 'gone';

/** Every member of a batch in exactly one bucket, each bucket in input order. */
export interface BatchPartition<Id extends string = string> {
  readonly completed: Id[];
  readonly retried: Id[];
  readonly dead: Id[];
  readonly delayed: Id[];
}

/**
 * Sorts settled members into buckets (queue.md §7): ok/ok is completed, delay/ok is delayed,
 * error/dead is dead; every other pair, and a member with no entry, counts as retried.
 */
export function partitionBatch<Id extends string>(
  ids: readonly Id[],
  settled: ReadonlyMap<Id, { readonly verdict: BatchVerdict; readonly outcome: SettleOutcome }>,
): BatchPartition<Id> {
  const out: BatchPartition<Id> = { completed: [], retried: [], dead: [], delayed: [] };
  for (const id of ids) {
    const entry = settled.get(id);
    if (!entry) out.retried.push(id);
    else if (entry.verdict === 'ok' && entry.outcome === 'ok') out.completed.push(id);
    else if (typeof entry.verdict === 'object' && 'delay' in entry.verdict && entry.outcome === 'ok') out.delayed.push(id);
    else if (typeof entry.verdict === 'object' && 'error' in entry.verdict && entry.outcome === 'dead') out.dead.push(id);
    else out.retried.push(id);
  }
  return out;
}
