/** What the fault run does to the seeded schedule before it runs it. */
import type { FaultStep } from '@echo/testkit';

/** Faults that take a primary away, and for good if their promotion does not come. */
const FAILOVERS: ReadonlySet<string> = new Set(['master-kill', 'sentinel-failover']);

/**
 * The schedule without failovers (master kills, Sentinel failovers) that start in its last minute,
 * or its last quarter when the run is shorter than 4 minutes: one that goes wrong that late would
 * leave the drain without a primary for some slots, and one that goes right would still be healing
 * while the drain is judged. The other faults stay.
 */
export function withoutLateFailovers(steps: readonly FaultStep[], durationMs: number, tailMs = Math.min(60_000, Math.round(durationMs / 4))): FaultStep[] {
  return steps.filter((step) => !(FAILOVERS.has(step.kind) && step.atMs >= durationMs - tailMs));
}
