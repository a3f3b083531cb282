/**
 * A job's attempt history [TS]: the records the claims and settlements append to
 * `emq:{q}:job:<id>:attempts` when the queue meta's `history` is set (lua/lib/history.lua), and the
 * one parser every reader uses.
 *
 * Wire form, one LIST element per record, oldest first, fields separated by a tab:
 * - a start: `<token>\ts\t<at>` (a claim leased the job at server ms `at`);
 * - an end: `<token>\te\t<at>\t<outcome>\t<error>` (the error is the rest of the element, tabs included).
 * A start and its end pair by token; the list keeps the last N attempts, so the oldest end may have
 * lost its start.
 */

/** How an attempt ended. `failed` is a failure at the attempt cap (the job is dead). */
export type AttemptOutcome = 'completed' | 'retried' | 'failed' | 'stalled' | 'delayed';

const OUTCOMES: ReadonlySet<string> = new Set<AttemptOutcome>(['completed', 'retried', 'failed', 'stalled', 'delayed']);

/** One attempt of a job, as its history recorded it. */
export interface AttemptRecord {
  /** The attempt's token (the row's `attempts` after the claim): 1 for the first attempt. */
  readonly attempt: number;
  /** Server ms the claim leased the job; `null` when the start fell out of the bounded history. */
  readonly startedAt: number | null;
  /** Server ms the attempt ended; `null` while it runs (or when its worker vanished unseen). */
  readonly endedAt: number | null;
  /** How it ended; `null` while it runs. */
  readonly outcome: AttemptOutcome | null;
  /** `endedAt - startedAt` in ms, when both are known. */
  readonly durationMs: number | null;
  /** The failure text (cut to 1 KiB by the server); `null` when the attempt did not fail. */
  readonly error: string | null;
}

interface Mutable {
  attempt: number;
  startedAt: number | null;
  endedAt: number | null;
  outcome: AttemptOutcome | null;
  error: string | null;
}

/**
 * Parses the records of one job's attempt history, oldest attempt first. A record this version does
 * not understand is skipped rather than failing the read: the history is a diagnostic, not state.
 */
export function parseAttempts(records: readonly string[]): AttemptRecord[] {
  const out: Mutable[] = [];
  for (const record of records) {
    const parts = record.split('\t');
    const attempt = Number(parts[0]);
    const at = Number(parts[2]);
    if (!Number.isSafeInteger(attempt) || !Number.isSafeInteger(at)) continue;
    const last = out.at(-1);
    if (parts[1] === 's') {
      out.push({ attempt, startedAt: at, endedAt: null, outcome: null, error: null });
    } else if (parts[1] === 'e' && parts[3] !== undefined && OUTCOMES.has(parts[3])) {
      const error = parts.slice(4).join('\t');
      const entry = last?.attempt === attempt && last.endedAt === null ? last : undefined;
      const target = entry ?? { attempt, startedAt: null, endedAt: null, outcome: null, error: null };
      target.endedAt = at;
      target.outcome = parts[3] as AttemptOutcome;
      target.error = error === '' ? null : error;
      if (entry === undefined) out.push(target);
    }
  }
  return out.map((a) => ({
    ...a,
    durationMs: a.startedAt !== null && a.endedAt !== null ? a.endedAt - a.startedAt : null,
  }));
}
