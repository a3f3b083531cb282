/**
 * The mixed conformance mode: each mixed scenario runs twice on a fresh sub-queue, Echo acting first
 * and the spec-only runtime second, then the other way round, and reports one verdict per run in
 * the shape of {@link ScenarioResult}. Every queue it named is purged afterwards, pass or fail.
 */
import { randomBytes } from 'node:crypto';
import { mintId } from '@echo/protocol/extend';
import { Queue, rawCodec } from '@echo/queue';
import { scenarioEnv } from '../env.js';
import { failureDetail, type ScenarioResult } from '../runner.js';
import type { SpecRuntime } from '../spec-runtime/index.js';
import type { ConformanceTarget } from '../target.js';
import { echoActor, specActor } from './actors.js';
import type { MixedScenario } from './scenario.js';
import { MIXED_SCENARIOS } from './scenarios.js';

/** The two orders every mixed scenario runs in: who acts as `a` (first) and `b` (second). */
export const DIRECTIONS = ['echo-spec', 'spec-echo'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The name a mixed run reports: `mixed:<scenario>:<direction>`. */
export function mixedName(scenario: MixedScenario, direction: Direction): string {
  return `mixed:${scenario.name}:${direction}`;
}

/** Runs one mixed scenario in one direction. Never throws for a failed scenario. */
export async function runMixedOne(target: ConformanceTarget, runtime: SpecRuntime, scenario: MixedScenario, direction: Direction): Promise<ScenarioResult> {
  const started = performance.now();
  const base = `mix-${randomBytes(4).toString('hex')}`;
  const handle = scenarioEnv(target, base, `${scenario.name}.${direction}`);
  const name = handle.env.name();
  const head = { no: undefined, name: mixedName(scenario, direction), contract: scenario.contract, family: 'ts' as const };
  let outcome: Pick<ScenarioResult, 'verdict' | 'detail' | 'error'>;
  try {
    const echo = await Queue.open(name, { connection: target.connection, codec: rawCodec });
    handle.env.defer(() => echo.close());
    const bus = await handle.env.bus();
    handle.env.defer(() => bus.close());
    const spec = runtime.queue(name);
    const [e, s] = [echoActor(echo, bus), specActor(spec)];
    const [a, b] = direction === 'echo-spec' ? [e, s] : [s, e];
    await scenario.run({
      a,
      b,
      echo,
      spec,
      command: (command, ...args) => target.connection.command(command, ...args),
      scan: (pattern) => target.scanKeys(pattern),
      mint: (ns) => mintId(ns),
    });
    outcome = { verdict: 'ok', detail: undefined, error: undefined };
  } catch (error) {
    outcome = { verdict: 'fail', detail: failureDetail(error), error };
  }
  const [cleanupError] = await handle.cleanup();
  try {
    await handle.purge();
  } catch (error) {
    if (outcome.verdict === 'ok') outcome = { verdict: 'fail', detail: `purge: ${failureDetail(error)}`, error };
  }
  if (outcome.verdict === 'ok' && cleanupError !== undefined) outcome = { verdict: 'fail', detail: `cleanup: ${failureDetail(cleanupError)}`, error: cleanupError };
  return { ...head, ...outcome, durationMs: Math.round(performance.now() - started) };
}

/** Every mixed scenario in both directions, serially. */
export async function runMixed(target: ConformanceTarget, runtime: SpecRuntime, scenarios: readonly MixedScenario[] = MIXED_SCENARIOS): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) for (const direction of DIRECTIONS) results.push(await runMixedOne(target, runtime, scenario, direction));
  return results;
}
