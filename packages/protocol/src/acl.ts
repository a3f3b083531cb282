/**
 * The least-privilege ACL rules of each pillar, derived from the code that sends its commands; no
 * list of command names is kept here or beside the builders.
 *
 * A pillar's commands are two sets, each generated from its source:
 * - the host's (`HOST_COMMANDS`, scripts/gen-acl.ts): every command the modules its subpath
 *   (`@echo/protocol/<pillar>`) reaches declare where they send it: a typed read or write names its
 *   command as a literal (`read('HGETALL', …)`, `write('XGROUP CREATE', …)`), the connector names
 *   what it sends on the socket (`client.call('EVALSHA', …)`), and a `@sends` tag names what the
 *   driver sends for an option or a method (`HELLO`, `CLIENT SETNAME`, `SUBSCRIBE`). The subpath
 *   exposes each pillar only its own builders (src/contract/<pillar>), so a builder widens the rules
 *   of the pillars that can call it and no other; the connector's own commands reach every pillar.
 * - the scripts' (`LUA_SCRIPT_COMMANDS`, scripts/gen-lua.ts): what each script the pillar's
 *   transitions bind calls inside EVALSHA (ACLs apply there too), body and included libraries.
 * A pillar cannot send anything else: it holds no driver (lint), no read or write factory (its
 * subpath exports builders only) and no raw `command`/`pipeline` call (lint). Both generated modules
 * are checked current by the protocol's tests.
 */
import { assertCacheTable, assertQueueName } from './keys/names.js';
import { FENCE_KEY } from './connector/fence.js';
import { HOST_COMMANDS } from './generated/host-commands.js';
import { LUA_PILLAR_SCRIPTS, LUA_SCRIPT_COMMANDS } from './scripts/generated/lua-sources.js';

/** Every command `pillar` sends: its host's and its scripts'. */
function pillarCommands(pillar: 'queue' | 'bus' | 'cache'): string[] {
  return [...HOST_COMMANDS[pillar], ...LUA_PILLAR_SCRIPTS[pillar].flatMap((name) => LUA_SCRIPT_COMMANDS[name])];
}

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
    pillarCommands('queue'),
    queues.map((q) => `emq:{${q}}:*`),
    queues.map((q) => `emq:{${q}}:events`),
  );
}

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
    pillarCommands('bus'),
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
    pillarCommands('cache'),
    namespaces.map((n) => `ecc:{${n}}:*`),
    [...namespaces.map((n) => `ecc:{${n}}:coh`), '__redis__:invalidate'],
  );
}
