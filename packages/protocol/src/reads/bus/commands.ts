/**
 * Every command the bus host sends by itself (outside its scripts), in ACL spelling: the stream
 * reads and writes, its records' reads and writes (the archive watermark, the paused-groups hash)
 * and the event publish. A unit test builds each typed read and write the bus uses and checks both
 * ways that this list names exactly their commands; the bus's ACL rules derive from it.
 */
export const BUS_READ_COMMANDS = [
  // Appends, reads and the cursor's probes.
  'xadd', 'xrange', 'xrevrange', 'xread', 'xinfo|stream',
  // Consumer groups: reads, settlement, lag and the operator's controls.
  'xreadgroup', 'xack', 'xgroup|create', 'xgroup|setid', 'xgroup|destroy', 'xinfo|groups', 'xinfo|consumers', 'xpending',
  // Retention, and the archive watermark (bus.md §8).
  'xtrim', 'get', 'set', 'del',
  // The paused-groups hash [TS].
  'hset', 'hdel', 'hexists',
  // Lifecycle events (bus.md §1.2).
  'publish',
] as const;
