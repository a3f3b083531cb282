/**
 * Runs the conformance scenarios against a target (conformance.md, "Harness rules"): serially,
 * each on its own sub-queue `<base>.<scenario>` under a fresh random base, with every queue it
 * named purged afterwards, pass or fail. A thrown error is that scenario's named failure.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { CONFORMANCE_SCENARIOS } from './catalog.js';
import { scenarioEnv } from './env.js';
import type { Family, Scenario } from './scenario.js';
import type { ConformanceTarget } from './target.js';

/** One scenario's verdict. */
export interface ScenarioResult {
  /** The number in conformance.md; `undefined` for the TS-only extensions. */
  readonly no: number | undefined;
  readonly name: string;
  readonly contract: string;
  readonly family: Family;
  readonly verdict: 'ok' | 'fail' | 'skip';
  /** The failure in one line, or the reason it was skipped; `undefined` when ok. */
  readonly detail: string | undefined;
  /** What the scenario threw, when it failed. */
  readonly error: unknown;
  readonly durationMs: number;
}

/** A whole run. `passed + failed + skipped` is the number of scenarios selected. */
export interface ConformanceRun {
  /** The random base every sub-queue of this run was named under. */
  readonly base: string;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly results: readonly ScenarioResult[];
}

/** What to run and how: a selection, a streaming callback, a per-scenario timeout. */
export interface RunOptions {
  /** Only these scenarios (by exact name, or a predicate), still in catalog order. Unknown names throw. */
  readonly only?: readonly string[] | ((scenario: Scenario) => boolean);
  /** Called with each verdict as soon as it is known, for streaming output. */
  readonly onResult?: (result: ScenarioResult) => void;
  /** A scenario still running after this long fails as timed out. Default 60 s. */
  readonly timeoutMs?: number;
  /** The scenarios to choose from; default {@link CONFORMANCE_SCENARIOS}. */
  readonly scenarios?: readonly Scenario[];
}

function select(scenarios: readonly Scenario[], only: RunOptions['only']): readonly Scenario[] {
  if (only === undefined) return scenarios;
  if (typeof only === 'function') return scenarios.filter(only);
  const known = new Set(scenarios.map((s) => s.name));
  const unknown = only.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new RangeError(`unknown conformance scenario(s): ${unknown.join(', ')}`);
  const wanted = new Set(only);
  return scenarios.filter((s) => wanted.has(s.name));
}

const show = (value: unknown): string => inspect(value, { depth: 4, breakLength: Infinity, compact: true });

/** A thrown error as one short line for the `CONF … FAIL <detail>` output. */
export function failureDetail(error: unknown): string {
  let text: string;
  if (error instanceof assert.AssertionError) {
    // A custom message may come back with the comparison appended on later lines: keep its first.
    const message = error.message.split('\n')[0] ?? '';
    if (error.generatedMessage) text = `expected ${show(error.expected)}, got ${show(error.actual)}`;
    else if (error.operator === '==' || error.operator === 'fail') text = message;
    else text = `${message} (expected ${show(error.expected)}, got ${show(error.actual)})`;
  } else if (error instanceof Error) {
    text = `${error.name}: ${error.message}`;
  } else {
    text = String(error);
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 400 ? `${line.slice(0, 397)}...` : line;
}

async function withTimeout(work: Promise<void>, ms: number, name: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} still running after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function runOne(target: ConformanceTarget, base: string, scenario: Scenario, timeoutMs: number): Promise<Omit<ScenarioResult, 'durationMs'>> {
  const head = { no: scenario.no, name: scenario.name, contract: scenario.contract, family: scenario.family };
  if (scenario.skip !== undefined) return { ...head, verdict: 'skip', detail: scenario.skip, error: undefined };

  const handle = scenarioEnv(target, base, scenario.name);
  let outcome: Omit<ScenarioResult, 'durationMs'>;
  try {
    const reason = scenario.probe === undefined ? undefined : await scenario.probe(handle.env);
    if (reason === undefined) {
      await withTimeout(scenario.run(handle.env), timeoutMs, scenario.name);
      outcome = { ...head, verdict: 'ok', detail: undefined, error: undefined };
    } else {
      outcome = { ...head, verdict: 'skip', detail: reason, error: undefined };
    }
  } catch (error) {
    outcome = { ...head, verdict: 'fail', detail: failureDetail(error), error };
  }
  const cleanupErrors = await handle.cleanup();
  let purgeError: unknown;
  try {
    await handle.purge();
  } catch (error) {
    purgeError = error;
  }
  if (outcome.verdict !== 'fail') {
    const [first] = cleanupErrors;
    if (first !== undefined) outcome = { ...head, verdict: 'fail', detail: `cleanup: ${failureDetail(first)}`, error: first };
    else if (purgeError !== undefined) outcome = { ...head, verdict: 'fail', detail: `purge: ${failureDetail(purgeError)}`, error: purgeError };
  }
  return outcome;
}

/** Runs the selected scenarios one after another against `target`. Never throws for a failed scenario. */
export async function runConformance(target: ConformanceTarget, options: RunOptions = {}): Promise<ConformanceRun> {
  const scenarios = select(options.scenarios ?? CONFORMANCE_SCENARIOS, options.only);
  const base = `conf-${randomBytes(5).toString('hex')}`;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    const started = performance.now();
    const outcome = await runOne(target, base, scenario, timeoutMs);
    const result: ScenarioResult = { ...outcome, durationMs: Math.round(performance.now() - started) };
    results.push(result);
    options.onResult?.(result);
  }
  const tally = (verdict: ScenarioResult['verdict']): number => results.filter((r) => r.verdict === verdict).length;
  return { base, passed: tally('ok'), failed: tally('fail'), skipped: tally('skip'), results };
}
