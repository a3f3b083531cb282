/** The report lines of conformance.md ("Output"): one `CONF` line per scenario, then the totals. */
import type { ConformanceRun, ScenarioResult } from './runner.js';

/** The spec's line for one scenario: `CONF <name> ok|FAIL <detail>|skip: <reason> -- <contract>`. */
export function formatResult(result: ScenarioResult): string {
  const verdict = result.verdict === 'ok' ? 'ok' : result.verdict === 'fail' ? `FAIL ${result.detail ?? ''}` : `skip: ${result.detail ?? ''}`;
  return `CONF ${result.name} ${verdict} -- ${result.contract}`;
}

/** `CONFORMANCE <passed>/<run>`: skipped scenarios are reported on their own line, never counted as run. */
export function formatSummary(run: Pick<ConformanceRun, 'passed' | 'failed'>): string {
  return `CONFORMANCE ${run.passed}/${run.passed + run.failed}`;
}

/** The plain tally line: `N passed, M failed, K skipped`. */
export function formatCounts(run: Pick<ConformanceRun, 'passed' | 'failed' | 'skipped'>): string {
  return `${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`;
}

/** Every `CONF` line, then the `CONFORMANCE` line and the tally line. */
export function formatReport(run: ConformanceRun): string {
  return [...run.results.map(formatResult), formatSummary(run), formatCounts(run)].join('\n');
}
