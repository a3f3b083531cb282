/**
 * Registers the whole conformance suite as one `it` per scenario against whatever server `open`
 * reaches, through the one adapter (`createTarget`), and pins which scenarios may skip and why.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CONFORMANCE_SCENARIOS,
  NEEDS_FIELD_TTL,
  formatCounts,
  formatResult,
  formatSummary,
  runConformance,
  type ConformanceTarget,
  type Scenario,
  type ScenarioResult,
} from '../src/index.js';

/** A target for one suite, and how to take down what was started for it. */
export interface OpenedTarget {
  readonly target: ConformanceTarget;
  close(): Promise<void>;
}

/** The skips a run may report, each for a stated reason: what is not built, and native field expiry below Redis 7.4. */
export function allowedSkip(scenario: Scenario, reason: string): boolean {
  if (scenario.skip !== undefined) return reason === scenario.skip;
  return scenario.family === 'native' && reason === NEEDS_FIELD_TTL;
}

export function conformanceSuite(open: () => Promise<OpenedTarget>): void {
  const scenarios = CONFORMANCE_SCENARIOS;
  const results = new Map<string, ScenarioResult>();
  let opened: OpenedTarget | undefined;

  beforeAll(async () => {
    opened = await open();
  }, 60_000);

  afterAll(async () => {
    const ran = scenarios.flatMap((s) => results.get(s.name) ?? []);
    const tally = { passed: 0, failed: 0, skipped: 0 };
    for (const r of ran) tally[r.verdict === 'ok' ? 'passed' : r.verdict === 'fail' ? 'failed' : 'skipped']++;
    console.log([...ran.map(formatResult), formatSummary(tally), formatCounts(tally)].join('\n'));
    await opened?.close();
  });

  for (const scenario of scenarios) {
    it(scenario.name, { timeout: 60_000 }, async (ctx) => {
      if (!opened) throw new Error('the target did not open');
      const run = await runConformance(opened.target, { only: [scenario.name], timeoutMs: 30_000 });
      const [result] = run.results;
      if (!result) throw new Error(`no result for ${scenario.name}`);
      results.set(scenario.name, result);
      if (result.verdict === 'fail') throw result.error instanceof Error ? result.error : new Error(result.detail);
      if (result.verdict === 'skip') {
        expect(allowedSkip(scenario, result.detail ?? ''), `unexpected skip: ${formatResult(result)}`).toBe(true);
        ctx.skip(result.detail);
      }
    });
  }

  it('accounts for every scenario it was given', () => {
    expect([...results.keys()]).toEqual(scenarios.map((s) => s.name));
  });
}
