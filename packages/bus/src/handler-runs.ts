import { InvalidArgumentError } from '@echo/protocol/bus';
import type { GroupBatchHandler, GroupEntry, GroupHandler } from './consume-options.js';
import { checkVerdict } from './option-checks.js';
import { outcomeOf, thrown, type Outcome } from './settle.js';

/**
 * What a handler run needs from its consumer: how many calls may be in flight, whether a stop
 * began, the counters it moves and where the errors it survives go.
 */
export interface RunScope {
  readonly concurrency: number;
  readonly stats: { delivered: number; failed: number };
  readonly onError: (error: unknown, entry?: GroupEntry) => void;
  stopping(): boolean;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function failed(scope: RunScope, outcome: Outcome, error: unknown, entry: GroupEntry): Outcome {
  scope.stats.failed++;
  scope.onError(error, entry);
  return outcome;
}

/** The outcome a handler's answer stands for; an answer that is no verdict fails the delivery. */
function judged(scope: RunScope, verdict: unknown, entry: GroupEntry): Outcome {
  if (typeof verdict === 'object' && verdict !== null && !Array.isArray(verdict)) {
    try {
      checkVerdict(verdict);
    } catch (error) {
      return failed(scope, thrown(error), error, entry);
    }
  }
  const outcome = outcomeOf(verdict);
  if (outcome !== undefined) {
    if (outcome.kind === 'retry') scope.stats.failed++;
    return outcome;
  }
  const error = new InvalidArgumentError('verdict', `must be 'ack', 'retry', { retryInMs } or { deadLetter }, got ${JSON.stringify(verdict)}`);
  return failed(scope, thrown(error), error, entry);
}

/**
 * Runs a per-entry handler over a read's entries, up to `concurrency` calls at a time; a stop
 * starts no new one. Answers one outcome per slot (`undefined` for an entry that could not be read
 * or was not started). `call` makes each handler call, so a caller can wrap it.
 */
export async function runEach(
  scope: RunScope,
  entries: readonly (GroupEntry | undefined)[],
  call: (entry: GroupEntry, index: number) => unknown,
): Promise<(Outcome | undefined)[]> {
  const outcomes: (Outcome | undefined)[] = new Array<Outcome | undefined>(entries.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!scope.stopping() && next < entries.length) {
      const i = next++;
      const entry = entries[i];
      if (entry === undefined) continue;
      scope.stats.delivered++;
      let verdict: unknown;
      try {
        verdict = call(entry, i);
        // A synchronous handler's verdict is taken as it is: no microtask per entry.
        if (isThenable(verdict)) verdict = await verdict;
      } catch (error) {
        outcomes[i] = failed(scope, thrown(error), error, entry);
        continue;
      }
      outcomes[i] = judged(scope, verdict, entry);
    }
  };
  const lanes = Math.min(scope.concurrency, entries.length);
  if (lanes === 1) await lane();
  else await Promise.all(Array.from({ length: lanes }, lane));
  return outcomes;
}

/**
 * Runs a batch handler once over a read's readable entries and spreads its verdicts back over the
 * slots. `call` makes the handler call, so a caller can wrap it.
 */
export async function runBatch(
  scope: RunScope,
  all: readonly (GroupEntry | undefined)[],
  call: (entries: readonly GroupEntry[]) => unknown,
): Promise<(Outcome | undefined)[]> {
  const entries = all.filter((e): e is GroupEntry => e !== undefined);
  if (entries.length === 0) return [];
  scope.stats.delivered += entries.length;
  let verdicts: unknown;
  try {
    verdicts = await call(entries);
  } catch (error) {
    const outcome = thrown(error);
    return all.map((e) => (e === undefined ? undefined : failed(scope, outcome, error, e)));
  }
  if (verdicts !== undefined && (!Array.isArray(verdicts) || verdicts.length !== entries.length)) {
    const error = new InvalidArgumentError('verdicts', `must be one per entry (${entries.length}), got ${Array.isArray(verdicts) ? verdicts.length : typeof verdicts}`);
    return all.map((e) => (e === undefined ? undefined : failed(scope, thrown(error), error, e)));
  }
  const list = verdicts as readonly unknown[] | undefined;
  let j = 0;
  return all.map((e) => (e === undefined ? undefined : judged(scope, list?.[j++], e)));
}

/** The two handler forms, told apart by how the consumer was started. */
export type Handling = { readonly each: GroupHandler } | { readonly batch: GroupBatchHandler };

/**
 * Wraps one handler call over the entries at `slots` (for example in a tracing channel) and
 * answers what `run` answers.
 */
export type CallWrap = (slots: readonly number[], batch: boolean, run: () => unknown) => unknown;

/** Runs the consumer's handler over a read's entries, each call through `wrap` when one is given. */
export function runHandling(scope: RunScope, handling: Handling, entries: readonly (GroupEntry | undefined)[], wrap?: CallWrap): Promise<(Outcome | undefined)[]> {
  if ('each' in handling) {
    const handler = handling.each;
    return runEach(scope, entries, wrap === undefined ? (entry) => handler(entry) : (entry, i) => wrap([i], false, () => handler(entry)));
  }
  const handler = handling.batch;
  if (wrap === undefined) return runBatch(scope, entries, (batch) => handler(batch));
  const slots: number[] = [];
  entries.forEach((e, i) => {
    if (e !== undefined) slots.push(i);
  });
  return runBatch(scope, entries, (batch) => wrap(slots, true, () => handler(batch)));
}
