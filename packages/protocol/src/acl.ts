import { assertCacheTable, assertQueueName } from './keys/names.js';
import { FENCE_KEY } from './connector/fence.js';
import { QUEUE_READ_COMMANDS } from './reads/queue/index.js';
import { CACHE_READ_COMMANDS } from './reads/cache/commands.js';
import { CACHE_WRITE_COMMANDS } from './writes/cache/commands.js';
import { BUS_READ_COMMANDS } from './reads/bus/commands.js';
import { LUA_PILLAR_SCRIPTS, LUA_SCRIPT_COMMANDS } from './scripts/generated/lua-sources.js';

/** Commands the connector itself sends: the handshake, the fence, EVALSHA and its NOSCRIPT fallback. */
const CONNECTOR_COMMANDS = ['hello', 'ping', 'client|setname', 'get', 'set', 'evalsha', 'script|load'] as const;

/**
 * The commands a pillar's scripts run inside EVALSHA (ACLs apply to these too): the union of what
 * each script the pillar's transitions bind calls, body and included libraries. The generator reads
 * both from the sources (`LUA_PILLAR_SCRIPTS`, `LUA_SCRIPT_COMMANDS`), so a new call in a script
 * widens exactly its pillar's list.
 */
function scriptCommands(pillar: keyof typeof LUA_PILLAR_SCRIPTS): readonly string[] {
  return [...new Set(LUA_PILLAR_SCRIPTS[pillar].flatMap((name) => LUA_SCRIPT_COMMANDS[name]))].sort();
}

/** Commands the queue's scripts run inside EVALSHA. */
const QUEUE_SCRIPT_COMMANDS = scriptCommands('queue');

/**
 * Commands the queue host sends directly: its typed reads ({@link QUEUE_READ_COMMANDS}, `wait` for
 * admissions under `durability: 'replicated'` among them), the wake read (`blpop`), the events
 * channel (`subscribe`, `unsubscribe`), the events journal's reader (`xread`, a stream read of the
 * protocol's StreamCursor) and `info` (the connect-time eviction-policy check).
 */
const QUEUE_HOST_COMMANDS = [...QUEUE_READ_COMMANDS, 'blpop', 'subscribe', 'unsubscribe', 'xread', 'info'] as const;

/** The ACL rules for `commands`, the key `patterns` and the pub/sub `channels`, fence key included. */
function rules(commands: Iterable<string>, patterns: readonly string[], channels: readonly string[]): string[] {
  return [
    'resetkeys',
    'resetchannels',
    '-@all',
    ...[...new Set(commands)].sort().map((c) => `+${c}`),
    `%RW~${FENCE_KEY}`,
    ...patterns.map((p) => `~${p}`),
    ...channels.map((c) => `&${c}`),
  ];
}

/**
 * The least-privilege ACL rules for a user that runs the queue pillar on the given queues and
 * nothing else: its keys (`~emq:{q}:*`), its events channel, read-write on the fence key only, and
 * exactly the commands the connector, the scripts and the host send. Feed them to
 * `ACL SETUSER <name> on ><password> ...rules`. Any other queue's keys are refused with `NOPERM`,
 * which Echo reports as a typed `PermissionError`.
 */
export function queueAclRules(queues: readonly string[]): string[] {
  for (const q of queues) assertQueueName(q);
  return rules(
    [...CONNECTOR_COMMANDS, ...QUEUE_SCRIPT_COMMANDS, ...QUEUE_HOST_COMMANDS],
    queues.map((q) => `emq:{${q}}:*`),
    queues.map((q) => `emq:{${q}}:events`),
  );
}

/** Commands the bus's stream scripts run inside EVALSHA. */
const BUS_SCRIPT_COMMANDS = scriptCommands('bus');

/**
 * Commands the bus host sends: its typed reads and writes (appends, reads, groups and their
 * controls, settlement, lag, trimming, the archive watermark, the events channel), the events
 * listener's subscription, and `info` (the connect-time eviction-policy check).
 */
const BUS_HOST_COMMANDS = [...BUS_READ_COMMANDS, 'subscribe', 'unsubscribe', 'info'] as const;

/** Commands the cache's scripts run inside EVALSHA. */
const CACHE_SCRIPT_COMMANDS = scriptCommands('cache');

/**
 * Commands the cache host sends: its typed reads (L2 frames, tag and clear walks) and plain writes
 * (declared tables' rows, the broadcast lane), whose lists live beside them; the coherence log
 * reader; the broadcast and tracking lanes; and `info` (the connect-time eviction-policy check).
 */
const CACHE_HOST_COMMANDS = [
  ...CACHE_READ_COMMANDS, ...CACHE_WRITE_COMMANDS, 'xread', 'xrevrange', 'xinfo|stream',
  'subscribe', 'unsubscribe', 'client|id', 'client|tracking', 'info',
] as const;

/**
 * The least-privilege ACL rules for a user that runs the bus pillar (stream logs, consumer groups,
 * dead letters, the events channel) on the given queues and nothing else. Feed them to
 * `ACL SETUSER <name> on ><password> ...rules`; another queue's streams are refused with `NOPERM`,
 * which Echo reports as a typed `PermissionError`.
 *
 * @throws InvalidNameError for a bad queue name.
 */
export function busAclRules(queues: readonly string[]): string[] {
  for (const q of queues) assertQueueName(q);
  return rules(
    [...CONNECTOR_COMMANDS, ...BUS_SCRIPT_COMMANDS, ...BUS_HOST_COMMANDS],
    queues.map((q) => `emq:{${q}}:*`),
    queues.map((q) => `emq:{${q}}:events`),
  );
}

/**
 * The least-privilege ACL rules for a user that runs the cache pillar on the given namespaces (keyed
 * namespaces and declared tables share the `ecc:{<name>}:` prefix) and nothing else: their keys, their
 * coherence channels, and the tracking lane's invalidation channel. Feed them to
 * `ACL SETUSER <name> on ><password> ...rules`.
 *
 * @throws InvalidNameError for a bad namespace or table name.
 */
export function cacheAclRules(namespaces: readonly string[]): string[] {
  for (const n of namespaces) assertCacheTable(n);
  return rules(
    [...CONNECTOR_COMMANDS, ...CACHE_SCRIPT_COMMANDS, ...CACHE_HOST_COMMANDS],
    namespaces.map((n) => `ecc:{${n}}:*`),
    [...namespaces.map((n) => `ecc:{${n}}:coh`), '__redis__:invalidate'],
  );
}
