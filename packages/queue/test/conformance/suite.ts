/**
 * Registers the shipped conformance suite (`@echo/testkit/conformance`) as one `it` per scenario
 * against whatever server `open` reaches, and pins which scenarios the queue-side target may skip and why.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
// The lint's deep-import pattern predates declared subpath exports; this one is in testkit's `exports` map.
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
} from '@echo/testkit/conformance';

/** A target for one suite, and how to take it down. */
export interface OpenedTarget {
  readonly target: ConformanceTarget;
  close(): Promise<void>;
}

/**
 * The skips a queue-side run may report, each for a stated reason: what is not built, the bus
 * scenarios (this target has no `openBus`; `@echo/bus`'s conformance test runs exactly those, so the
 * two runs together cover every built scenario once), and native field expiry below Redis 7.4.
 */
export function queueSideSkip(scenario: Scenario, reason: string): boolean {
  if (scenario.skip !== undefined) return reason === scenario.skip;
  if (scenario.needs.includes('openBus')) return reason.startsWith('needs ') && reason.includes('target.openBus');
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
    it(scenario.name, { timeout: 40_000 }, async (ctx) => {
      if (!opened) throw new Error('the target did not open');
      const run = await runConformance(opened.target, { only: [scenario.name], timeoutMs: 30_000 });
      const [result] = run.results;
      if (!result) throw new Error(`no result for ${scenario.name}`);
      results.set(scenario.name, result);
      if (result.verdict === 'fail') throw result.error instanceof Error ? result.error : new Error(result.detail);
      if (result.verdict === 'skip') {
        expect(queueSideSkip(scenario, result.detail ?? ''), `unexpected skip: ${formatResult(result)}`).toBe(true);
        ctx.skip(result.detail);
      }
    });
  }

  it('accounts for every scenario it was given', () => {
    expect([...results.keys()]).toEqual(scenarios.map((s) => s.name));
  });
}
