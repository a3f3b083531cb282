import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSpec, readVendored, specPath } from '../scripts/spec-list.js';
import { CONFORMANCE_SCENARIOS, IN_PROTOCOL_TESTS, NEEDS_FIELD_TTL, SPEC_SCENARIO_COUNT } from '../src/index.js';

/**
 * The run order is pinned by the scenario list vendored from conformance.md (spec/scenarios.json),
 * so this check runs in any clone, CI included ("Additive-minor law": the total is fixed in two
 * tests, the run result and the run-order list). A new scenario is appended to the spec, the
 * vendored list and the catalogue together.
 */
const vendored = readVendored();
const SPEC = specPath();

describe('the conformance catalogue', () => {
  it('holds the 79 scenarios of the vendored list by number, then its 4 TS-only ones, then our own [TS] extensions', () => {
    expect(vendored.scenarios).toHaveLength(SPEC_SCENARIO_COUNT);
    expect(vendored.scenarios.map((s) => s.no)).toEqual(vendored.scenarios.map((_, i) => i + 1));
    expect(vendored.extensions).toHaveLength(4);
    const specified = vendored.scenarios.length + vendored.extensions.length;
    const listed = CONFORMANCE_SCENARIOS.slice(0, specified);
    expect(listed.map((s) => s.name)).toEqual([...vendored.scenarios.map((s) => s.name), ...vendored.extensions]);
    expect(listed.map((s) => s.no)).toEqual([...vendored.scenarios.map((s) => s.no), ...vendored.extensions.map(() => undefined)]);
    // Scenarios for behaviour the spec does not name ([TS] extensions) come last, unnumbered, named ts_*.
    const own = CONFORMANCE_SCENARIOS.slice(specified);
    for (const s of own) {
      expect(s.name).toMatch(/^ts_/);
      expect(s.no).toBeUndefined();
      expect(vendored.extensions).not.toContain(s.name);
    }
    expect(new Set(CONFORMANCE_SCENARIOS.map((s) => s.name)).size).toBe(CONFORMANCE_SCENARIOS.length);
  });

  it('vendors a list that says where it came from', () => {
    expect(vendored.source).toContain('conformance.md');
    expect(vendored.regenerate).toContain('vendor-spec');
  });

  // Only where the spec itself is at hand (beside the repository, or at CONFORMANCE_SPEC): a fresh clone has the vendored list alone.
  it.skipIf(!existsSync(SPEC))('vendors exactly the names, numbers and order of conformance.md', () => {
    const spec = parseSpec(readFileSync(SPEC, 'utf8'));
    expect(spec.scenarios).toHaveLength(SPEC_SCENARIO_COUNT);
    expect({ scenarios: vendored.scenarios, extensions: vendored.extensions }).toEqual(spec);
  });

  it('reads the spec tables the way the vendored list was made', () => {
    const table = ['| # | Name | Contract |', '|---|---|---|', '| 1 | `fence` | The fence. |', '| 2 | `mint` | A row. |', '', '| Name | Contract |', '| `ts_vectors` | Vectors. |'].join('\n');
    expect(parseSpec(table)).toEqual({ scenarios: [{ no: 1, name: 'fence' }, { no: 2, name: 'mint' }], extensions: ['ts_vectors'] });
  });

  it('gives every scenario a one-line contract and a family', () => {
    for (const s of CONFORMANCE_SCENARIOS) {
      expect(s.contract, s.name).toMatch(/^\S[^\n]*\S$/);
      expect(s.family, s.name).toMatch(/^[a-z]+$/);
    }
  });

  it('marks as skipped only what is not built here, each with its reason', () => {
    const skipped = CONFORMANCE_SCENARIOS.filter((s) => s.skip !== undefined).map((s) => [s.name, s.skip]);
    expect(skipped).toEqual([
      ['ts_fence_major', IN_PROTOCOL_TESTS],
      ['ts_declared_keys', IN_PROTOCOL_TESTS],
      ['ts_vectors', IN_PROTOCOL_TESTS],
    ]);
    // The native-expiry pair asks the server instead: skipped on Redis < 7.4, run (never passed blindly) above.
    const probed = CONFORMANCE_SCENARIOS.filter((s) => s.probe !== undefined).map((s) => s.name);
    expect(probed).toEqual(['native_lock_field', 'native_lock_refuses']);
    expect(NEEDS_FIELD_TTL).toBe('needs Redis 7.4+ hash-field TTL');
  });
});
