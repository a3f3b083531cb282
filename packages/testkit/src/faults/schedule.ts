import type { Fault } from './injectors.js';
import { seededRandom } from './random.js';

/** One fault of a schedule: inject `kind` at `atMs` after the start, heal it `holdMs` later. */
export interface FaultStep {
  readonly atMs: number;
  readonly kind: string;
  readonly holdMs: number;
}

/** Options for {@link planFaults}. */
export interface PlanOptions {
  /** Same seed, same schedule. */
  readonly seed: number;
  /** No fault is injected after this. */
  readonly durationMs: number;
  /** The kinds to draw from, uniformly. */
  readonly kinds: readonly string[];
  /** Quiet time between a heal and the next inject, drawn in `[min, max]`; default `[1000, 3000]`. */
  readonly gapMs?: readonly [number, number];
  /** How long each fault lasts, drawn in `[min, max]`; default `[500, 4000]`. */
  readonly holdMs?: readonly [number, number];
  /** Quiet time before the first fault (warm-up); default the gap. */
  readonly warmupMs?: number;
}

function between(random: () => number, [min, max]: readonly [number, number]): number {
  return Math.round(min + random() * (max - min));
}

/**
 * A seeded list of faults with their times and durations, one at a time, quiet gaps between them.
 * The list is plain data: print it with a failure, and replay it with the same seed.
 */
export function planFaults(options: PlanOptions): FaultStep[] {
  if (options.kinds.length === 0) throw new RangeError('planFaults needs at least one kind');
  const random = seededRandom(options.seed);
  const gap = options.gapMs ?? [1_000, 3_000];
  const hold = options.holdMs ?? [500, 4_000];
  const steps: FaultStep[] = [];
  let at = options.warmupMs ?? between(random, gap);
  while (at < options.durationMs) {
    const kind = options.kinds[Math.floor(random() * options.kinds.length)] as string;
    const holdMs = between(random, hold);
    steps.push({ atMs: at, kind, holdMs });
    at += holdMs + between(random, gap);
  }
  return steps;
}

/** What happened to one step when {@link runFaults} ran it. */
export interface StepOutcome extends FaultStep {
  /** `Date.now()` when the inject began, and when the heal finished. */
  readonly injectedAt: number;
  readonly healedAt: number;
  /** Why the inject or the heal failed, if it did (the run goes on). */
  readonly error?: string;
}

/** What {@link runFaults} did. */
export interface FaultRun {
  readonly steps: readonly StepOutcome[];
  /** Faults injected, by kind. */
  readonly injected: Readonly<Record<string, number>>;
  /** Steps whose inject or heal threw. */
  readonly failed: number;
  /** Steps not run because `mayStart` refused them when their turn came (late ones), by kind. */
  readonly skipped: Readonly<Record<string, number>>;
}

/** Options for {@link runFaults}. */
export interface RunFaultsOptions {
  /** Stops before the next step (a step in progress is healed first). */
  readonly signal?: AbortSignal;
  /** Hears each step as it begins and ends (for a log). */
  readonly onStep?: (event: 'inject' | 'heal', step: FaultStep) => void;
  /**
   * Asked when a step's turn comes, with the time since the start: `false` skips it (counted in
   * `skipped`). Steps run one at a time, so slow heals push the later ones back; a run bounded in
   * time uses this to drop what no longer fits instead of running for hours past its schedule.
   */
  readonly mayStart?: (step: FaultStep, elapsedMs: number) => boolean;
}

function sleepUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = at - Date.now();
  if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `steps` in real time against `faults` (by kind): waits for each step's time, injects it,
 * holds it, heals it. A step whose kind has no fault throws at once, before anything runs; an
 * inject or heal that throws is recorded and the run goes on (a heal is always attempted). The
 * workload runs beside it, under the caller's control.
 */
export async function runFaults(steps: readonly FaultStep[], faults: Readonly<Record<string, Fault>>, options: RunFaultsOptions = {}): Promise<FaultRun> {
  for (const step of steps) if (!(step.kind in faults)) throw new RangeError(`no fault for kind ${step.kind} (known: ${Object.keys(faults).join(', ')})`);
  const start = Date.now();
  const outcomes: StepOutcome[] = [];
  const injected: Record<string, number> = {};
  const skipped: Record<string, number> = {};
  let failed = 0;
  for (const step of steps) {
    await sleepUntil(start + step.atMs, options.signal);
    if (options.signal?.aborted === true) break;
    if (options.mayStart?.(step, Date.now() - start) === false) {
      skipped[step.kind] = (skipped[step.kind] ?? 0) + 1;
      continue;
    }
    const fault = faults[step.kind] as Fault;
    const injectedAt = Date.now();
    const errors: string[] = [];
    options.onStep?.('inject', step);
    try {
      await fault.inject();
      injected[step.kind] = (injected[step.kind] ?? 0) + 1;
    } catch (error) {
      errors.push(`inject: ${error instanceof Error ? error.message : String(error)}`);
    }
    await sleepUntil(Date.now() + step.holdMs, options.signal);
    try {
      await fault.heal();
    } catch (error) {
      errors.push(`heal: ${error instanceof Error ? error.message : String(error)}`);
    }
    options.onStep?.('heal', step);
    if (errors.length > 0) failed++;
    outcomes.push({ ...step, injectedAt, healedAt: Date.now(), ...(errors.length > 0 ? { error: errors.join('; ') } : {}) });
  }
  return { steps: outcomes, injected, failed, skipped };
}
