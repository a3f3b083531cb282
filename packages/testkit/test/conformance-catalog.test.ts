import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_SCENARIOS, IN_PROTOCOL_TESTS, NEEDS_FIELD_TTL, SPEC_SCENARIO_COUNT } from '../src/conformance/index.js';

/**
 * The run order, pinned (conformance.md, "Additive-minor law": the total is fixed in two tests, the
 * run result and the run-order list). A new scenario is appended here and in the catalog together.
 */
const RUN_ORDER = [
  'fence', 'mint', 'duplicate', 'kind', 'order', 'claim', 'stale', 'complete', 'retry', 'dead', 'reap', 'rotate', 'pause', 'limit',
  'schedule', 'repeat', 'backoff', 'resubscribe',
  'counts', 'state', 'metrics', 'dedup', 'rate', 'lane_depth',
  'queue_pause', 'drain', 'obliterate', 'update_data', 'update_progress', 'job_logs', 'remove_job', 'reprocess_job',
  'lock_extend', 'stalled', 'events', 'telemetry', 'cancel',
  'unknown_state', 'rate_consult', 'dedup_release', 'extend_locks_batch', 'stalled_group', 'obliterate_grouped',
  'reassign', 'lane_drain', 'reap_group',
  'flow_add', 'flow_fanin', 'flow_children_values', 'flow_cross_queue', 'flow_fail_parent', 'flow_ignore_dep', 'flow_add_bulk',
  'flow_grandchild', 'flow_grandchild_fail',
  'pool_enqueue', 'pool_order',
  'native_lock_field', 'native_lock_refuses',
  'weighted_proportion', 'starvation_drill',
  'batch_claim', 'batch_claim_short', 'batch_partial_failure', 'batch_shaping_floor', 'batch_shaping_timeout',
  'batch_shaping_partial_failure', 'grouped_batch_affinity', 'grouped_batch_ceiling', 'grouped_batch_fairness', 'batch_partition',
  'batch_delay', 'batch_delay_stale',
  'stream_verbs', 'stream_append', 'stream_group', 'stream_retention', 'stream_archived', 'stream_time_travel',
];
const TS_ONLY = ['ts_fence_major', 'ts_declared_keys', 'ts_vectors', 'ts_complete_cleans'];

/** conformance.md lives in the shared spec folder beside the repository (or where CONFORMANCE_SPEC says). */
const SPEC = process.env.CONFORMANCE_SPEC ?? fileURLToPath(new URL('../../../../shared/spec/conformance.md', import.meta.url));

describe('the conformance catalog', () => {
  it('holds the 79 scenarios of conformance.md by number, then the 4 TS-only ones', () => {
    expect(RUN_ORDER).toHaveLength(SPEC_SCENARIO_COUNT);
    expect(CONFORMANCE_SCENARIOS.map((s) => s.name)).toEqual([...RUN_ORDER, ...TS_ONLY]);
    expect(CONFORMANCE_SCENARIOS.map((s) => s.no)).toEqual([...RUN_ORDER.map((_, i) => i + 1), ...TS_ONLY.map(() => undefined)]);
  });

  it.skipIf(!existsSync(SPEC))('matches the names, numbers and order of conformance.md itself', () => {
    const text = readFileSync(SPEC, 'utf8');
    const numbered = [...text.matchAll(/^\| (\d+) \| `([a-z0-9_]+)`/gm)].map((m) => [Number(m[1]), m[2]]);
    const extensions = [...text.matchAll(/^\| `(ts_[a-z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(numbered).toHaveLength(SPEC_SCENARIO_COUNT);
    expect(CONFORMANCE_SCENARIOS.flatMap((s) => (s.no === undefined ? [] : [[s.no, s.name]]))).toEqual(numbered);
    expect(CONFORMANCE_SCENARIOS.filter((s) => s.no === undefined).map((s) => s.name)).toEqual(extensions);
  });

  it('gives every scenario a one-line contract, a family and its needs', () => {
    for (const s of CONFORMANCE_SCENARIOS) {
      expect(s.contract, s.name).toMatch(/^\S[^\n]*\S$/);
      expect(s.family, s.name).toMatch(/^[a-z]+$/);
      expect(new Set(s.needs).size, s.name).toBe(s.needs.length);
    }
  });

  it('marks as skipped only what is not built here, each with its reason', () => {
    const skipped = CONFORMANCE_SCENARIOS.filter((s) => s.skip !== undefined).map((s) => [s.name, s.skip]);
    expect(skipped).toEqual([
      ['telemetry', 'not built'],
      ['ts_fence_major', IN_PROTOCOL_TESTS],
      ['ts_declared_keys', IN_PROTOCOL_TESTS],
      ['ts_vectors', IN_PROTOCOL_TESTS],
    ]);
    // The native-expiry pair asks the server instead: skipped on Redis < 7.4, run (never passed blindly) above.
    const probed = CONFORMANCE_SCENARIOS.filter((s) => s.probe !== undefined).map((s) => s.name);
    expect(probed).toEqual(['native_lock_field', 'native_lock_refuses']);
    expect(NEEDS_FIELD_TTL).toBe('needs Redis 7.4+ hash-field TTL');
  });

  it('splits cleanly between a queue-side target and a bus-side one: each built scenario runs on exactly one', () => {
    const bus = CONFORMANCE_SCENARIOS.filter((s) => s.needs.includes('openBus'));
    const queue = CONFORMANCE_SCENARIOS.filter((s) => s.skip === undefined && !s.needs.includes('openBus'));
    expect(bus.map((s) => s.name)).toEqual(['resubscribe', 'stream_verbs', 'stream_append', 'stream_group', 'stream_retention', 'stream_archived', 'stream_time_travel']);
    expect(bus.some((s) => s.needs.includes('openQueue'))).toBe(false);
    expect(queue.length + bus.length + 4).toBe(CONFORMANCE_SCENARIOS.length);
  });
});
