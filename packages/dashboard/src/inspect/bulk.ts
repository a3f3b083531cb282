import { EchoError, InvalidArgumentError } from '@echo/protocol';
import type { Queue } from '@echo/queue';

/** What a select-and-act can do to each selected job. */
export type BulkAction = 'retry' | 'remove' | 'promote';

/** The actions {@link bulkAct} knows. */
export const BULK_ACTIONS: readonly BulkAction[] = ['retry', 'remove', 'promote'];

/** Most jobs one bulk request acts on. */
export const BULK_MAX = 1000;

/** One selected job's outcome. */
export interface BulkOutcome {
  /** The job id as sent. */
  readonly id: string;
  /** True when the action was applied. */
  readonly ok: boolean;
  /** The typed error's name when it was refused (`StateError`, `GoneError`, `LockedError`…). */
  readonly error?: string;
  /** The refusal's message. */
  readonly message?: string;
}

/** What a bulk request did, per job in request order. */
export interface BulkResult {
  /** The action applied. */
  readonly action: BulkAction;
  /** Jobs it was applied to. */
  readonly done: number;
  /** Jobs that refused it (moved or gone since the page was drawn). */
  readonly refused: number;
  /** One outcome per distinct id, in request order. */
  readonly outcomes: BulkOutcome[];
}

/**
 * Checks a bulk request's shape before anything is written: a known action and 1..{@link BULK_MAX}
 * distinct ids.
 * @throws InvalidArgumentError
 */
export function checkBulk(action: unknown, ids: unknown): { action: BulkAction; ids: string[] } {
  if (typeof action !== 'string' || !(BULK_ACTIONS as readonly string[]).includes(action)) {
    throw new InvalidArgumentError('action', `must be one of ${BULK_ACTIONS.join(', ')}`);
  }
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > BULK_MAX || !ids.every((id) => typeof id === 'string')) {
    throw new InvalidArgumentError('ids', `must be a list of 1..${String(BULK_MAX)} job ids`);
  }
  return { action: action as BulkAction, ids: [...new Set(ids)] };
}

/**
 * Applies one action to each selected job, each its own queue transition (`reprocess`, `remove_job`,
 * `reschedule_job` to now): a job that moved since the page was drawn is refused with its typed
 * error, and the others go on.
 */
export async function bulkAct(queue: Queue<string>, action: BulkAction, ids: readonly string[]): Promise<BulkResult> {
  const run = (id: string): Promise<void> => (action === 'retry' ? queue.reprocess(id) : action === 'remove' ? queue.remove(id) : queue.promote(id));
  const outcomes = await Promise.all(
    ids.map(async (id): Promise<BulkOutcome> => {
      try {
        await run(id);
        return { id, ok: true };
      } catch (error) {
        if (error instanceof EchoError) return { id, ok: false, error: error.name, message: error.message };
        throw error;
      }
    }),
  );
  const done = outcomes.filter((o) => o.ok).length;
  return { action, done, refused: outcomes.length - done, outcomes };
}
