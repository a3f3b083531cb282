import { GoneError, InvalidArgumentError, StaleError } from '@echo/protocol/queue';
import { resendUntil, unreached } from '../lease/resend.js';
import { encodeResult } from '../core/codec.js';
import type { CompleteManyOutcome, HeldJob } from '../lease/options.js';
import { backoffDelay } from '../core/backoff.js';
import { UnrecoverableError } from './errors.js';
import type { ClaimedJob } from '../core/job.js';
import type { SettleOutcome } from './partition.js';
import type { WorkerRuntime } from './runtime.js';
import { localNow } from '../core/clock.js';

/**
 * Sends `send` again while it fails without reaching a primary, for up to one lease from the first
 * failure: after a lease the job may have been reaped and the token would refuse us anyway.
 */
function resend<R>(leaseMs: number, first: unknown, send: () => Promise<R>): Promise<R> {
  return resendUntil(localNow() + leaseMs, first, send);
}

/**
 * Runs a settlement, surviving a socket drop or a failover: the call is sent again until it
 * reaches a primary ({@link resend}; the first may or may not have landed). A refusal of a resend
 * is read as a lost lease, even though our first call may have landed, except for a completion
 * answered `gone` while our lease provably held ({@link ownCompletion}): `gone` is also what a job
 * completed by the worker that reaped it answers, and claiming someone else's verdict would
 * publish a false event. Never thrown at the worker.
 */
async function settle<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, send: () => Promise<void>, completes = false): Promise<'ok' | 'stale' | 'gone'> {
  try {
    await send();
    return 'ok';
  } catch (error) {
    let last = error;
    let resent = false;
    try {
      if (unreached(error)) {
        resent = true;
        await resend(rt.options.leaseMs, error, send);
        return 'ok';
      }
    } catch (again) {
      last = again;
    }
    if (completes && resent && last instanceof GoneError && (await ownCompletion(rt, job, localNow()))) return 'ok';
    if (completes && resent && (await landedUnreported(rt, job, last))) return 'ok';
    if (last instanceof StaleError || last instanceof GoneError) rt.stats.lost++;
    rt.options.onError(last, job);
    return last instanceof GoneError ? 'gone' : 'stale';
  }
}

/**
 * Reads `gone`, heard on a resend of a completion, as our own first send's verdict when it was: the
 * first send landed though its reply was lost. Before the job's lease could have ended (the lock
 * plane's bound: the claim's or the last extension's send time plus the lease) no reaper could have
 * handed the job to another worker, so the only completion that can have removed it is ours. After
 * that bound `gone` may be another worker's verdict, so the server is asked whose completion it
 * holds (`Leases.completedUnder`: the retained row's token, or the recent completions); only
 * a completion under our token is ours. This path is rare (a reset in the middle of a completion),
 * so the read costs nothing on the hot path.
 */
async function ownCompletion<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, answeredAt: number): Promise<boolean> {
  if (answeredAt < rt.locks.leaseUntil(job)) return true;
  return (await rt.leases.completedUnder(job).catch(() => undefined)) === true;
}

/**
 * A completion whose sends reached no primary for a whole lease (a failover longer than the
 * lease): the first send may still have landed before the link went. Once a primary answers again
 * (asked for up to two more leases) the server says whose completion it holds; only one under our
 * token is ours, so a job another worker finished after a reap is still reported lost.
 */
async function landedUnreported<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, error: unknown): Promise<boolean> {
  if (!unreached(error)) return false;
  // Two leases: a reconnect on a loaded machine, or a failover, can outlast the first resend window.
  return (await resendUntil(localNow() + 2 * rt.options.leaseMs, error, () => rt.leases.completedUnder(job)).catch(() => undefined)) === true;
}

/**
 * The text a handler's return value leaves for a flow parent. A value JSON cannot carry (a bigint,
 * a cycle) must not keep the job from completing: it is reported and the parent records the
 * child's id instead, as for a handler that returned nothing.
 */
export function resultText<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, result: unknown): string | undefined {
  try {
    return encodeResult(result);
  } catch (error) {
    rt.options.onError(error, job);
    return undefined;
  }
}

/** Completes a job with its handler's result; the script publishes `completed` and drops the marker. */
export async function completeJob<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, result: unknown): Promise<SettleOutcome> {
  // The event goes out inside the complete script itself: atomic with the verdict, no extra call.
  const publish = rt.options.publishEvents;
  const text = resultText(rt, job, result);
  const outcome = await settle(rt, job, () => rt.leases.complete(job, text, { publish }), true);
  if (outcome !== 'ok') return outcome;
  rt.stats.completed++;
  return 'ok';
}

/**
 * Completes many plain jobs in one script (a batch's successes). Members refused as stale or gone
 * lost their lease and are counted and reported so; after a socket drop the whole call is resent,
 * with the same reading of refusals as {@link completeJob}. `resending` says an earlier call that
 * may have landed carried these completions (a fused round that failed), so `gone` is read as
 * {@link ownCompletion} reads it. Flow children are completed one by one.
 */
export async function completeJobs<T>(rt: WorkerRuntime<T>, jobs: readonly ClaimedJob<T>[], results?: ReadonlyMap<string, string>, resending = false): Promise<Map<string, SettleOutcome>> {
  const out = new Map<string, SettleOutcome>();
  const plain = jobs.filter((job) => job.parent === undefined);
  const held = heldWithResults(plain, results);
  const publish = rt.options.publishEvents;
  let outcomes: CompleteManyOutcome[] | undefined;
  let resent = resending;
  let unanswered: unknown;
  try {
    outcomes = await rt.leases.completeMany(held, { publish });
  } catch (error) {
    resent ||= unreached(error);
    outcomes = unreached(error)
      ? await resend(rt.options.leaseMs, error, () => rt.leases.completeMany(held, { publish })).catch((last: unknown) => {
          unanswered = last;
          return undefined;
        })
      : undefined;
    unanswered ??= error;
  }
  const answeredAt = localNow();
  // No answer at all: each job is asked after, once a primary answers, whether our first send landed it.
  if (!outcomes) outcomes = await Promise.all(plain.map(async (job): Promise<CompleteManyOutcome> => ((await landedUnreported(rt, job, unanswered)) ? 'ok' : 'stale')));
  if (outcomes.some((answer) => answer === 'stale') && unanswered !== undefined) rt.options.onError(unanswered);
  // A flow child must feed its parent, which only the single complete does.
  const individually = jobs.filter((job) => job.parent !== undefined);
  for (const [i, job] of plain.entries()) {
    const answer = outcomes[i] ?? 'stale';
    const outcome = answer === 'gone' && resent && (await ownCompletion(rt, job, answeredAt)) ? 'ok' : answer;
    if (outcome === 'flow') {
      individually.push(job);
    } else if (outcome === 'ok') {
      rt.stats.completed++;
      out.set(job.id, 'ok');
    } else {
      rt.stats.lost++;
      // Without an answer the call's own error was reported above.
      if (unanswered === undefined) rt.options.onError(outcome === 'gone' ? new GoneError() : new StaleError('complete token mismatch'), job);
      out.set(job.id, outcome);
    }
  }
  await Promise.all(individually.map(async (job) => out.set(job.id, await completeJob(rt, job, results?.get(job.id)))));
  return out;
}

/**
 * The held form of plain jobs with the result text each handler left, so a batch or a round keeps
 * it as the single complete does (retained rows, the `completed` event).
 */
function heldWithResults<T>(jobs: readonly ClaimedJob<T>[], results: ReadonlyMap<string, string> | undefined): readonly HeldJob[] {
  if (results === undefined || results.size === 0) return jobs;
  return jobs.map((job): HeldJob => ({ id: job.id, attempts: job.attempts, result: results.get(job.id) }));
}

/** What {@link completeAndClaimJobs} did: how each job settled, the jobs it claimed, and why it claimed none. */
export interface RoundOutcome<T> {
  readonly outcomes: Map<string, SettleOutcome>;
  readonly claimed: ClaimedJob<T>[];
  /** When the rate limit refused the claim: ms until its window reopens; else 0. */
  readonly limitedMs: number;
  /** Set when the fused call failed: the completions were sent again on their own, nothing was claimed. */
  readonly error?: unknown;
}

/**
 * One round of a busy worker: completes the plain jobs and claims up to `size` next jobs in one
 * script (`complete_claim`); flow children are completed alone, as only `complete` feeds a parent.
 * A member refused as stale or gone lost its lease: counted and reported as the single path does.
 * If the call fails, the completions go again through {@link completeJobs} (resent while no primary
 * answers) and the error is handed back for the claim.
 */
export async function completeAndClaimJobs<T>(rt: WorkerRuntime<T>, jobs: readonly ClaimedJob<T>[], size: number, results?: ReadonlyMap<string, string>): Promise<RoundOutcome<T>> {
  const plain = jobs.filter((job) => job.parent === undefined);
  const alone = jobs.filter((job) => job.parent !== undefined);
  const o = rt.options;
  let round: { completions: readonly CompleteManyOutcome[]; claimed: ClaimedJob<T>[]; limitedMs: number; resent: boolean };
  try {
    round = await rt.leases.completeAndClaim(heldWithResults(plain, results), size, o.leaseMs, { ...rt.locks.claimOptions, publish: o.publishEvents });
  } catch (error) {
    // The failed call may have landed: its completions are resent, and read as such.
    return { outcomes: await completeJobs(rt, jobs, results, unreached(error)), claimed: [], limitedMs: 0, error };
  }
  const out = new Map<string, SettleOutcome>();
  // A round cut off and sent again: a `gone` may be its own first landing, read as completeJobs reads
  // it. Only that rare round pays for the check; an ordinary round reads its codes as they came.
  const answers = round.resent ? await ownedAnswers(rt, plain, round.completions) : round.completions;
  plain.forEach((job, i) => {
    const outcome = answers[i] ?? 'stale';
    if (outcome === 'flow') {
      alone.push(job);
    } else if (outcome === 'ok') {
      rt.stats.completed++;
      out.set(job.id, 'ok');
    } else {
      rt.stats.lost++;
      o.onError(outcome === 'gone' ? new GoneError() : new StaleError('complete token mismatch'), job);
      out.set(job.id, outcome);
    }
  });
  await Promise.all(alone.map(async (job) => out.set(job.id, await completeJob(rt, job, results?.get(job.id)))));
  return { outcomes: out, claimed: round.claimed, limitedMs: round.limitedMs };
}

/** A resent round's codes, with each `gone` that was the round's own first landing read as `ok`. */
function ownedAnswers<T>(rt: WorkerRuntime<T>, jobs: readonly ClaimedJob<T>[], codes: readonly CompleteManyOutcome[]): Promise<CompleteManyOutcome[]> {
  const answeredAt = localNow();
  return Promise.all(jobs.map(async (job, i) => {
    const answer = codes[i] ?? 'stale';
    return answer === 'gone' && (await ownCompletion(rt, job, answeredAt)) ? 'ok' : answer;
  }));
}

/** The delay used when a worker's backoff function fails or answers something that is not a delay. */
const FALLBACK_DELAY_MS = 1000;

/**
 * The wait before the next attempt: the job's own curve when it has one, else the worker's curve
 * or function. A function that throws or answers no whole, non-negative ms is reported and the
 * retry waits {@link FALLBACK_DELAY_MS}: a bad function must not lose the job.
 */
function retryDelay<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, reason: unknown): number {
  const attempt = Math.max(job.attempts, 1);
  if (job.backoff !== undefined) return backoffDelay(job.backoff, attempt);
  const policy = rt.options.backoff;
  if (typeof policy !== 'function') return backoffDelay(policy, attempt);
  let ms: unknown;
  try {
    ms = policy(attempt, reason, job);
  } catch (error) {
    rt.options.onError(error, job);
    return FALLBACK_DELAY_MS;
  }
  if (typeof ms === 'number' && Number.isSafeInteger(ms) && ms >= 0) return ms;
  rt.options.onError(new InvalidArgumentError('backoff', `the function answered ${String(ms)}, not a whole, non-negative delay in ms`), job);
  return FALLBACK_DELAY_MS;
}

/** Retries a job along the backoff curve (dead at `maxAttempts`) and publishes `failed` with the outcome. */
export async function failJob<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, reason: unknown): Promise<SettleOutcome> {
  const text = reason instanceof Error ? reason.message : String(reason);
  const delayMs = retryDelay(rt, job, reason);
  // An unrecoverable failure caps the attempts at this one, so the retry dead-letters it at once.
  const cap = reason instanceof UnrecoverableError ? Math.max(job.attempts, 1) : (job.maxAttempts ?? rt.options.maxAttempts);
  const verdict: { outcome: 'scheduled' | 'dead' } = { outcome: 'scheduled' };
  // `failed` goes out inside the retry script, atomic with the verdict (and journaled with it).
  const outcome = await settle(rt, job, async () => {
    verdict.outcome = await rt.leases.retry(job, delayMs, cap, text, { publish: rt.options.publishEvents });
  });
  if (outcome !== 'ok') return outcome;
  if (verdict.outcome === 'dead') {
    rt.stats.dead++;
    // A parent that died with its child in this queue passes its death on up the flow.
    await rt.leases.passDeathUp(job, text).catch((error: unknown) => rt.options.onError(error, job));
  } else {
    rt.stats.retried++;
    rt.due.expect(delayMs);
  }
  return verdict.outcome;
}

/** Hands a job back for `ms` without counting a failure and publishes `delayed`. */
export async function delayJob<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, ms: number | Date): Promise<SettleOutcome> {
  const outcome = await settle(rt, job, () => rt.leases.delay(job, ms, { publish: rt.options.publishEvents }));
  if (outcome !== 'ok') return outcome;
  rt.stats.delayed++;
  rt.due.expect(ms instanceof Date ? ms.getTime() - Date.now() : ms);
  return 'ok';
}

