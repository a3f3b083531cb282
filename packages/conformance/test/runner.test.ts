/** The runner's own contract, with made-up scenarios against a real server through the real adapter. */
import assert from 'node:assert/strict';
import { useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTarget, formatCounts, formatReport, formatResult, formatSummary, runConformance, type ConformanceTarget, type Scenario } from '../src/index.js';

let target: ConformanceTarget;

beforeAll(async () => {
  target = await createTarget({ connect: { url: (await useRedis()).url, strictKeys: true } });
});
afterAll(async () => {
  await target.close();
});

const scenario = (name: string, run: Scenario['run'], extra: Partial<Scenario> = {}): Scenario => ({
  name,
  contract: `the ${name} contract`,
  family: 'ts',
  run,
  ...extra,
});

describe('runConformance', () => {
  it('runs each scenario on <base>.<scenario>, purges every queue it named even when it fails, and names the failure', async () => {
    const written: string[] = [];
    const cleaned: string[] = [];
    const writes = async (env: Parameters<Scenario['run']>[0]): Promise<void> => {
      for (const q of [env.name(), env.name('xq')]) {
        const key = `emq:{${q}}:pending`;
        await env.command('ZADD', key, 0, 'x');
        written.push(key);
      }
      env.defer(() => void cleaned.push('first'));
      env.defer(() => void cleaned.push('second'));
    };
    const run = await runConformance(target, {
      scenarios: [
        scenario('passes', async (env) => {
          await writes(env);
        }),
        scenario('asserts', async (env) => {
          await writes(env);
          assert.equal(await env.command('ZCARD', `emq:{${env.name()}}:pending`), 2, 'the pending set holds two');
        }),
        scenario('throws', async (env) => {
          await writes(env);
          throw new TypeError('boom\nsecond line');
        }),
      ],
    });
    expect(run.base).toMatch(/^conf-[0-9a-f]{10}$/);
    expect(written[0]).toBe(`emq:{${run.base}.passes}:pending`);
    expect(written[1]).toBe(`emq:{${run.base}.passes.xq}:pending`);
    expect(run.results.map((r) => [r.name, r.verdict, r.detail])).toEqual([
      ['passes', 'ok', undefined],
      ['asserts', 'fail', 'the pending set holds two (expected 2, got 1)'],
      ['throws', 'fail', 'TypeError: boom second line'],
    ]);
    expect(run.results[2]?.error).toBeInstanceOf(TypeError);
    expect([run.passed, run.failed, run.skipped]).toEqual([1, 2, 0]);
    expect(cleaned).toEqual(['second', 'first', 'second', 'first', 'second', 'first']);
    expect(await target.connection.command('EXISTS', ...written)).toBe(0);
    expect(await target.scanKeys(`emq:{${run.base}.*`)).toEqual([]);
  });

  it('uses a fresh random base per run', async () => {
    const only = [scenario('one', () => Promise.resolve())];
    const [a, b] = [await runConformance(target, { scenarios: only }), await runConformance(target, { scenarios: only })];
    expect(a.base).not.toBe(b.base);
  });

  it('skips, with the reason, what is not built and what the server does not apply to', async () => {
    let ran = 0;
    const count = (): Promise<void> => {
      ran++;
      return Promise.resolve();
    };
    const run = await runConformance(target, {
      scenarios: [
        scenario('unbuilt', count, { skip: 'not built' }),
        scenario('probed', count, { probe: () => Promise.resolve('needs a newer server') }),
        scenario('applies', count, { probe: () => Promise.resolve(undefined) }),
      ],
    });
    expect(run.results.map((r) => [r.verdict, r.detail])).toEqual([
      ['skip', 'not built'],
      ['skip', 'needs a newer server'],
      ['ok', undefined],
    ]);
    expect(ran).toBe(1);
    expect(formatResult(run.results[1] as (typeof run.results)[number])).toBe('CONF probed skip: needs a newer server -- the probed contract');
  });

  it('fails a scenario that outlives its timeout, and a cleanup that throws fails an otherwise passing one', async () => {
    const run = await runConformance(target, {
      timeoutMs: 50,
      scenarios: [
        scenario('hangs', () => new Promise((resolve) => setTimeout(resolve, 500))),
        scenario('dirty', (env) => {
          env.defer(() => {
            throw new Error('could not close');
          });
          return Promise.resolve();
        }),
      ],
    });
    expect(run.results.map((r) => [r.verdict, r.detail])).toEqual([
      ['fail', 'Error: hangs still running after 50 ms'],
      ['fail', 'cleanup: Error: could not close'],
    ]);
  });

  it('selects by name in catalog order, refuses an unknown name, and streams each verdict', async () => {
    const seen: string[] = [];
    const run = await runConformance(target, { only: ['ts_vectors', 'ts_fence_major'], onResult: (r) => seen.push(r.name) });
    expect(seen).toEqual(['ts_fence_major', 'ts_vectors']);
    expect(run.results.every((r) => r.verdict === 'skip')).toBe(true);
    await expect(runConformance(target, { only: ['ts_vectors', 'no_such_thing'] })).rejects.toThrow(/no_such_thing/);
  });
});

describe('the output lines', () => {
  it('follow conformance.md: CONF <name> ok|FAIL <detail> -- <contract>, then CONFORMANCE <passed>/<run>', () => {
    const base = { no: 1, name: 'fence', contract: 'the fence holds', family: 'state' as const, error: undefined, durationMs: 3 };
    expect(formatResult({ ...base, verdict: 'ok', detail: undefined })).toBe('CONF fence ok -- the fence holds');
    expect(formatResult({ ...base, verdict: 'fail', detail: 'expected 1, got 2' })).toBe('CONF fence FAIL expected 1, got 2 -- the fence holds');
    expect(formatSummary({ passed: 77, failed: 2 })).toBe('CONFORMANCE 77/79');
    expect(formatCounts({ passed: 77, failed: 2, skipped: 4 })).toBe('77 passed, 2 failed, 4 skipped');
  });

  it('make a report of every CONF line, then the CONFORMANCE line and the tally', async () => {
    const run = await runConformance(target, {
      scenarios: [scenario('passes', () => Promise.resolve()), scenario('unbuilt', () => Promise.resolve(), { skip: 'not built' })],
    });
    expect(formatReport(run).split('\n')).toEqual([
      'CONF passes ok -- the passes contract',
      'CONF unbuilt skip: not built -- the unbuilt contract',
      'CONFORMANCE 1/1',
      '1 passed, 0 failed, 1 skipped',
    ]);
  });
});
