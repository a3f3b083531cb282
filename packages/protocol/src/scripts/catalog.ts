import { loadScript, LUA_DIR, type Script } from './script.js';

/**
 * Every transition of the protocol (protocol.md §7), one `.lua` file each. The list is checked
 * against the folder by a test, so a script cannot be added without being catalogued or vice versa.
 */
export const SCRIPT_NAMES = [
  // admission
  'enqueue',
  'enqueue_dedup',
  'schedule',
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
  'retry',
  'delay',
  'extend_lock',
  'extend_locks',
  // release and recovery
  'promote',
  'reap',
  'sweep_stalled',
  'greap_group',
  'reprocess',
  // operator and mutation
  'update_data',
  'update_progress',
  'add_log',
  'remove_job',
  'queue_pause',
  'queue_resume',
  'drain',
  'gdrain',
  'obliterate',
  // lanes control
  'gweight',
  'gpause',
  'gresume',
  'glimit',
  'greassign',
  // reads
  'counts',
  'state_lookup',
  'rate_ttl',
  'is_maxed',
  'lane_counts',
  // repeat
  'repeat_register',
  'repeat_cancel',
  'repeat_advance',
  'repeat_due',
  // flows
  'enqueue_flow',
  'hold_parent',
  'enqueue_flow_child',
  'flow_deliver',
  'flow_fail_deliver',
  // cache
  'coherence_drop',
] as const;

/** The name of one protocol transition. */
export type ScriptName = (typeof SCRIPT_NAMES)[number];

const loaded = new Map<ScriptName, Script>();

function load(name: ScriptName): Script {
  let script = loaded.get(name);
  if (!script) {
    script = loadScript(new URL(`${name}.lua`, LUA_DIR));
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
 * The catalog of protocol transitions. Each script is read from its file and hashed on first use,
 * then kept; sources and SHAs come from the files themselves, never from strings pasted into code.
 */
export function scripts(): Readonly<Record<ScriptName, Script>> {
  return catalog;
}
