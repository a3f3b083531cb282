/**
 * Argument-shape tests: each transition's KEYS and ARGV, written out literally, with no server. The
 * literals are the wire: swapping two `@key` lines in a header, or two values in a binding, fails here.
 *
 * One file per family of transitions. Each names below the scripts it writes out and checks, once its
 * tests ran, that it wrote out exactly those; coverage.test.ts checks that together they are the catalog,
 * so every script has a typed transition whose wire shape is written out.
 */
import { afterAll, expect } from 'vitest';
import type { JobId } from '../../src/index.js';

export const J = 'JOB0Nb1VTbfnu4';
export const P = 'JOB0Nb1VTbfnu5' as JobId;
export const G = 'USR0Nb1VTbfnu4';
export const q = (type: string): string => `emq:{orders}:${type}`;
export const LB = [q('gactive'), q('glimit'), q('ring'), q('wake'), q('paused')];

/** The scripts whose wire shape each file writes out. */
export const SHAPED = {
  admission: [
    'enqueue', 'enqueue_dedup', 'enqueue_many', 'enqueue_many_with', 'genqueue', 'schedule', 'schedule_dedup'
  ],
  claims: [
    'bclaim', 'claim', 'claim_recover', 'gbclaim', 'gclaim', 'gwclaim'
  ],
  settlement: [
    'add_children', 'complete', 'complete_batch', 'complete_claim', 'delay', 'extend_lock', 'extend_locks',
    'give_back', 'retry', 'wait_children'
  ],
  'queue-operations': [
    'add_log', 'adopt_children', 'change_priority', 'clean_completed', 'clean_dead', 'clear_logs', 'counts', 'dedup_release', 'detach_child', 'drain', 'enqueue_flow', 'enqueue_flow_child',
    'events_set', 'flow_deliver', 'flow_fail_deliver', 'flow_outbox_trim', 'flow_reemit', 'flow_rejoin', 'gate_set', 'gdrain',
    'glimit', 'gpause', 'grate', 'greap_group', 'greassign', 'gresume', 'gweight', 'hold_parent', 'is_maxed',
    'lane_counts', 'link_child', 'obliterate', 'promote', 'promote_next', 'queue_pause', 'queue_resume', 'rate_limit', 'rate_reset', 'rate_ttl',
    'reap', 'remove_job', 'repeat_advance', 'repeat_cancel', 'repeat_due', 'repeat_register', 'reprocess', 'reprocess_completed',
    'reschedule_job', 'retention_set', 'retry_dead', 'scheduler_due', 'scheduler_fire', 'scheduler_upsert',
    'state_lookup', 'sweep_stalled', 'update_data', 'update_progress', 'worker_beat', 'worker_leave', 'worker_list'
  ],
  streams: [
    'stream_append', 'stream_append_batch', 'stream_claim', 'stream_drop', 'stream_group_forget', 'stream_order_admit', 'stream_redrive',
    'stream_settle', 'stream_touch'
  ],
  cache: [
    'cache_clear', 'cache_delete', 'cache_expire', 'cache_pull', 'cache_read', 'cache_release', 'cache_tag_delete',
    'cache_write', 'coherence_drop'
  ],
} as const satisfies Record<string, readonly string[]>;

/** A built transition, as far as its wire shape goes. */
interface Built {
  readonly keys: readonly string[];
  readonly args: readonly unknown[];
  readonly script: { readonly name: string };
}

/** A transition's wire shape: its script, KEYS and ARGV. */
export interface Shape {
  script: string;
  keys: string[];
  args: unknown[];
}

/**
 * The `shape` of one file's tests: it answers a transition's wire shape and notes its script; after
 * the file's tests, the scripts noted must be exactly `SHAPED[file]`.
 */
export function shapes(file: keyof typeof SHAPED): (tr: Built) => Shape {
  const seen = new Set<string>();
  afterAll(() => {
    expect([...seen].sort()).toEqual([...SHAPED[file]].sort());
  });
  return (tr) => {
    seen.add(tr.script.name);
    return { script: tr.script.name, keys: [...tr.keys], args: [...tr.args] };
  };
}
