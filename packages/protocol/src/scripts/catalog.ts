import { InvalidArgumentError } from '../errors/validation.js';
import { LUA_LIBS, LUA_SCRIPTS } from './generated/lua-sources.js';
import { parseHeader } from './header.js';
import type { Script } from './script.js';
import { composeSource } from './source.js';

/**
 * Every transition of the protocol (protocol.md §7), one `.lua` file each. The list is checked
 * against the folder by a test, so a script cannot be added without being catalogued or vice versa;
 * the type checker holds it to the generated module, so a name without a file does not compile.
 */
export const SCRIPT_NAMES = [
  // admission
  'enqueue',
  'enqueue_many',
  'enqueue_many_with',
  'enqueue_dedup',
  'schedule',
  'schedule_dedup',
  'genqueue',
  // claims
  'claim',
  'bclaim',
  'gclaim',
  'gwclaim',
  'gbclaim',
  // settlement
  'complete',
  'complete_batch',
  'complete_claim',
  'retry',
  'delay',
  'add_children',
  'wait_children',
  'extend_lock',
  'extend_locks',
  // release and recovery
  'promote',
  'promote_next',
  'reschedule_job',
  'reap',
  'sweep_stalled',
  'greap_group',
  'reprocess',
  'retry_dead',
  'clean_dead',
  'clean_completed',
  'retention_set',
  // operator and mutation
  'update_data',
  'update_progress',
  'add_log',
  'remove_job',
  'queue_pause',
  'queue_resume',
  'gate_set',
  'events_set',
  'rate_limit',
  'drain',
  'gdrain',
  'obliterate',
  // lanes control
  'gweight',
  'gpause',
  'gresume',
  'glimit',
  'greassign',
  'grate',
  // reads
  'counts',
  'state_lookup',
  'rate_ttl',
  'is_maxed',
  'lane_counts',
  // [TS] worker registry
  'worker_beat',
  'worker_leave',
  'worker_list',
  // repeat
  'repeat_register',
  'repeat_cancel',
  'repeat_advance',
  'repeat_due',
  'scheduler_upsert',
  'scheduler_due',
  'scheduler_fire',
  // flows
  'enqueue_flow',
  'hold_parent',
  'enqueue_flow_child',
  'flow_deliver',
  'flow_fail_deliver',
  'flow_reemit',
  'flow_outbox_trim',
  // streams
  'stream_drop',
  'stream_claim',
  'stream_dead_letter',
  'stream_nack',
  'stream_redrive',
  'stream_append',
  'stream_touch',
  'stream_order_admit',
  'stream_order_done',
  'stream_group_forget',
  // cache
  'coherence_drop',
  'cache_read',
  'cache_write',
  'cache_release',
  'cache_delete',
  'cache_tag_delete',
  'cache_clear',
  'cache_pull',
  'cache_expire',
] as const;

/** The name of one protocol transition. */
export type ScriptName = (typeof SCRIPT_NAMES)[number];

const loaded = new Map<ScriptName, Script>();

/**
 * Builds a transition from the module the build generated from `lua/`. The SHA is the generator's,
 * trusted rather than recomputed: a test recomputes every one against the composed source and
 * regenerates the module to prove it is current, and the connector checks the digest `SCRIPT LOAD`
 * returns against it.
 */
function load(name: ScriptName): Script {
  let script = loaded.get(name);
  if (!script) {
    const { body, includes, sha } = LUA_SCRIPTS[name];
    const libs = includes.map((lib) => {
      const text = Object.hasOwn(LUA_LIBS, lib) ? LUA_LIBS[lib] : undefined;
      if (text === undefined) throw new InvalidArgumentError('@include', `${name}: library ${lib} is not in the build`);
      return text;
    });
    const header = parseHeader(body, `lua/${name}.lua`);
    script = Object.freeze({ name, source: composeSource(libs, body, header), sha, body, header, errorClasses: undefined });
    loaded.set(name, script);
  }
  return script;
}

const catalog = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(SCRIPT_NAMES.map((name) => [name, { enumerable: true, get: () => load(name) }])),
  ),
) as Readonly<Record<ScriptName, Script>>;

/**
 * The catalog of protocol transitions. Sources and SHAs are compiled from the `.lua` files into the
 * package at build time (nothing is read from disk, so bundlers work); each script is assembled on
 * first use, then kept.
 */
export function scripts(): Readonly<Record<ScriptName, Script>> {
  return catalog;
}
