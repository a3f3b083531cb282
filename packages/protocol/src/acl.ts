import { assertQueueName } from './keys/names.js';
import { FENCE_KEY } from './connector/fence.js';

/** Commands the connector itself sends: the handshake, the fence, EVALSHA and its NOSCRIPT fallback. */
const CONNECTOR_COMMANDS = ['hello', 'ping', 'client|setname', 'get', 'set', 'evalsha', 'script|load'] as const;

/** Commands the queue's scripts run inside EVALSHA; ACLs apply to these too. */
const QUEUE_SCRIPT_COMMANDS = [
  'time', 'exists', 'del', 'get', 'set', 'decr', 'pttl', 'publish',
  'hget', 'hset', 'hsetnx', 'hdel', 'hexists', 'hincrby', 'hkeys', 'hmget',
  'zadd', 'zrem', 'zcard', 'zscore', 'zrange', 'zrangebyscore', 'zpopmin',
  'lpush', 'rpush', 'lrem', 'ltrim', 'lrange', 'llen', 'lpos', 'lmove',
  'sadd', 'srem', 'sismember', 'smembers',
  // The events journal (when a queue turns it on) and its trim.
  'xadd', 'xtrim',
] as const;

/**
 * Commands the queue host sends directly: reads, the wake read, events and the events journal's
 * reader, `info` (the connect-time eviction-policy check) and `wait` (admissions under
 * `durability: 'replicated'`).
 */
const QUEUE_HOST_COMMANDS = ['blpop', 'publish', 'hgetall', 'hmget', 'hget', 'zcard', 'zrange', 'exists', 'lrange', 'llen', 'pexpire', 'subscribe', 'unsubscribe', 'info', 'wait', 'xread', 'xrevrange'] as const;

/**
 * The least-privilege ACL rules for a user that runs the queue pillar on the given queues and
 * nothing else: its keys (`~emq:{q}:*`), its events channel, read-write on the fence key only, and
 * exactly the commands the connector, the scripts and the host send. Feed them to
 * `ACL SETUSER <name> on ><password> ...rules`. Any other queue's keys are refused with `NOPERM`,
 * which Echo reports as a typed `PermissionError`.
 */
export function queueAclRules(queues: readonly string[]): string[] {
  for (const q of queues) assertQueueName(q);
  const commands = new Set<string>([...CONNECTOR_COMMANDS, ...QUEUE_SCRIPT_COMMANDS, ...QUEUE_HOST_COMMANDS]);
  return [
    'resetkeys',
    'resetchannels',
    '-@all',
    ...[...commands].sort().map((c) => `+${c}`),
    `%RW~${FENCE_KEY}`,
    ...queues.map((q) => `~emq:{${q}}:*`),
    ...queues.map((q) => `&emq:{${q}}:events`),
  ];
}
