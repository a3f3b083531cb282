/** What the fault run does to the seeded schedule before and while it runs it. */
import type { FaultStep } from '@echo/testkit';

/** Faults that take a primary away, and for good if their promotion does not come. */
const FAILOVERS: ReadonlySet<string> = new Set(['master-kill', 'sentinel-failover']);

/** The tail of a run in which no failover starts: its last minute, or its last quarter under 4 minutes. */
const failoverTail = (durationMs: number): number => Math.min(60_000, Math.round(durationMs / 4));

/** Whether `kind` may begin `atMs` into a run of `durationMs`. */
function fits(kind: string, atMs: number, durationMs: number, tailMs: number): boolean {
  if (atMs >= durationMs) return false;
  return !(FAILOVERS.has(kind) && atMs >= durationMs - tailMs);
}

/**
 * The schedule without failovers (master kills, Sentinel failovers) that start in its last minute,
 * or its last quarter when the run is shorter than 4 minutes: one that goes wrong that late would
 * leave the drain without a primary for some slots, and one that goes right would still be healing
 * while the drain is judged. The other faults stay.
 */
export function withoutLateFailovers(steps: readonly FaultStep[], durationMs: number, tailMs = failoverTail(durationMs)): FaultStep[] {
  return steps.filter((step) => fits(step.kind, step.atMs, durationMs, tailMs));
}

/**
 * The same rule applied when a step's turn actually comes (`runFaults`'s `mayStart`): steps run one at
 * a time, so slow heals (a loaded host, a long promotion) push the later ones back, and a 60-minute
 * schedule could run for hours. A step that no longer fits the run's length is skipped and counted.
 */
export function fitsRun(durationMs: number, tailMs = failoverTail(durationMs)): (step: FaultStep, elapsedMs: number) => boolean {
  return (step, elapsedMs) => fits(step.kind, elapsedMs, durationMs, tailMs);
}
