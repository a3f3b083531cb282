import type { JobId } from '../ids/branded.js';
import { isBrandedId } from '../ids/guards.js';

/**
 * One completion as a queue's recent completions keep it [TS] (`emq:{q}:outcomes`, written by
 * `complete`, `complete_batch` and `complete_claim` through lib retain when no completed row is kept).
 */
export interface OutcomeEntry {
  /** The completed job. */
  readonly job: JobId;
  /**
   * The token (the row's `attempts`) the completion was accepted under, when the entry carries it;
   * the current entries (`job`, `result`) do not, so it is `undefined` for them.
   */
  readonly token: number | undefined;
  /** The handler's result text; `undefined` when it gave none. */
  readonly result: string | undefined;
}

/**
 * Parses the fields of one recent-completions entry (`job <id> [result <text>]`, field and value
 * alternating) into the completions it records (one per entry today); an empty list for a malformed
 * entry, which a reader skips.
 */
export function parseOutcomesEntry(fields: readonly string[]): OutcomeEntry[] {
  if (fields.length % 2 !== 0) return [];
  let job: string | undefined;
  let result: string | undefined;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i];
    const value = fields[i + 1] as string;
    if (name === 'job') job = value;
    else if (name === 'result') result = value;
  }
  if (job === undefined || !isBrandedId(job)) return [];
  return [{ job: job as JobId, token: undefined, result }];
}
