import { hooks, type JobHookBase } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';
import type { SettleOutcome } from './partition.js';

/**
 * The worker's side of the `emq.job.*` telemetry hooks. Each function is one call at its emit point
 * and returns at once when nobody listens: no payload, no closure, no clock read.
 */

const job = hooks.job;

/** Handler start times, kept only while a job hook has listeners (a job started unheard has none). */
const starts = new WeakMap<object, number>();

function settledHeard(): boolean {
  return job.complete.hasSubscribers || job.fail.hasSubscribers || job.retry.hasSubscribers || job.dead.hasSubscribers;
}

function base(queue: string, claimed: ClaimedJob<unknown>): JobHookBase {
  return { queue, jobId: claimed.id, attempt: claimed.attempts, group: claimed.group };
}

/** Emits `emq.job.start` and notes the start time, for a job whose handler is about to run. */
export function jobStarted(queue: string, claimed: ClaimedJob<unknown>): void {
  if (settledHeard()) starts.set(claimed, performance.now());
  if (job.start.hasSubscribers) job.start.publish(base(queue, claimed));
}

/** {@link jobStarted} for every member of a batch. */
export function jobsStarted(queue: string, claimed: readonly ClaimedJob<unknown>[]): void {
  if (settledHeard() || job.start.hasSubscribers) for (const one of claimed) jobStarted(queue, one);
}

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/**
 * Emits the verdict hooks of a settled job: `complete`, or `fail` plus `retry`/`dead`. A lost lease
 * (`stale`, `gone`) or a delay emits nothing: no verdict of ours stood.
 */
export function jobVerdict(queue: string, claimed: ClaimedJob<unknown>, outcome: SettleOutcome, failure: { readonly reason: unknown } | undefined): void {
  const started = starts.get(claimed);
  if (started === undefined) return;
  starts.delete(claimed);
  const durationMs = performance.now() - started;
  if (outcome === 'ok' && failure === undefined) {
    if (job.complete.hasSubscribers) job.complete.publish({ ...base(queue, claimed), durationMs });
    return;
  }
  if (outcome !== 'scheduled' && outcome !== 'dead') return;
  const event = { ...base(queue, claimed), durationMs, error: errorText(failure?.reason), outcome: outcome === 'dead' ? ('dead' as const) : ('retry' as const) };
  if (job.fail.hasSubscribers) job.fail.publish(event);
  if (event.outcome === 'dead') {
    if (job.dead.hasSubscribers) job.dead.publish({ ...event, outcome: 'dead' });
  } else if (job.retry.hasSubscribers) job.retry.publish({ ...event, outcome: 'retry' });
}

/** Emits the verdict hooks when `settling` resolves; attaches nothing when nobody listens. */
export function jobSettled(queue: string, claimed: ClaimedJob<unknown>, failure: { readonly reason: unknown } | undefined, settling: Promise<SettleOutcome>): void {
  // Nobody listening now means no verdict hook to fire; a start noted earlier goes with the job.
  if (!settledHeard() || !starts.has(claimed)) return;
  void settling.then((outcome) => {
    jobVerdict(queue, claimed, outcome, failure);
  });
}

/** {@link jobSettled} for a verdict already known: emits the hook at once (nothing when nobody listens). */
export function jobSettledAs(queue: string, claimed: ClaimedJob<unknown>, failure: { readonly reason: unknown } | undefined, outcome: SettleOutcome): void {
  if (!settledHeard() || !starts.has(claimed)) return;
  jobVerdict(queue, claimed, outcome, failure);
}

/** Emits the verdict hooks of a settled batch, from its members' verdicts and outcomes. */
export function batchSettled(
  queue: string,
  claimed: readonly ClaimedJob<unknown>[],
  settled: ReadonlyMap<string, { readonly verdict: unknown; readonly outcome: SettleOutcome }>,
): void {
  if (!settledHeard()) return;
  for (const one of claimed) {
    if (!starts.has(one)) continue;
    const s = settled.get(one.id);
    if (s === undefined) continue;
    const failure = s.verdict === 'ok' ? undefined : { reason: errorOf(s.verdict) };
    jobVerdict(queue, one, s.outcome, failure);
  }
}

function errorOf(verdict: unknown): string {
  return typeof verdict === 'object' && verdict !== null && 'error' in verdict ? String(verdict.error) : 'failed';
}

/** Emits `emq.job.stalled` for the ids the pump recovered or dead-lettered. */
export function jobsStalled(queue: string, recovered: readonly string[], dead: readonly string[]): void {
  if (!job.stalled.hasSubscribers) return;
  for (const jobId of recovered) job.stalled.publish({ queue, jobId, outcome: 'recovered' });
  for (const jobId of dead) job.stalled.publish({ queue, jobId, outcome: 'dead' });
}
