import { cacheEntryKey, cacheKey, cacheLeaseKey, cacheLogKey, cacheTagKey } from './cache-keys.js';
import type { ParsedKey } from './parse-key.js';
import { queueKeys } from './queue-keys.js';
import type { QueueKeys } from './queue-keys.js';
import type { FixedType } from './registry.js';
import { BUNDLE_KEY, LOCKS_KEY, VERSION_KEY, migrationKey } from './reserve.js';

/** The {@link QueueKeys} field of each fixed suffix; `satisfies` makes a missing type a compile error. */
export const FIXED_FIELD = {
  pending: 'pending',
  active: 'active',
  schedule: 'schedule',
  dead: 'dead',
  meta: 'meta',
  limiter: 'limiter',
  ring: 'ring',
  wake: 'wake',
  paused: 'paused',
  gactive: 'gactive',
  glimit: 'glimit',
  gweight: 'gweight',
  repeat: 'repeat',
  'flow:outbox': 'flowOutbox',
  workers: 'workers',
  'workers:info': 'workersInfo',
  grate: 'grate',
  'waiting-children': 'waitingChildren',
  completed: 'completed',
  'dead:at': 'deadAt',
  journal: 'journal',
  outcomes: 'outcomes',
  expired: 'expired',
} as const satisfies Record<FixedType, keyof QueueKeys>;

const RESERVE_MEMBER = { version: VERSION_KEY, locks: LOCKS_KEY, bundle: BUNDLE_KEY } as const;

function metricsKey(queue: string, metric: 'completed' | 'failed', data: boolean): string {
  const keys = queueKeys(queue);
  if (metric === 'completed') return data ? keys.metricsCompletedData : keys.metricsCompleted;
  return data ? keys.metricsFailedData : keys.metricsFailed;
}

/**
 * Builds the key that `parts` describe, through the same builders the rest of the build uses, so it
 * validates exactly as they do. The inverse of {@link parseKey}; an `unclassified` value is returned as
 * its key unchanged.
 *
 * @throws InvalidNameError, MalformedIdError or InvalidArgumentError when a part is invalid.
 */
export function formatKey(parts: ParsedKey): string {
  switch (parts.kind) {
    case 'fixed':
      return queueKeys(parts.queue)[FIXED_FIELD[parts.type]];
    case 'metrics':
      return metricsKey(parts.queue, parts.metric, parts.data);
    case 'job':
      return parts.sub === null ? queueKeys(parts.queue).job(parts.id) : queueKeys(parts.queue).jobSub(parts.id, parts.sub);
    case 'lane':
      return queueKeys(parts.queue).lane(parts.group);
    case 'dedup':
      return queueKeys(parts.queue).dedup(parts.dedupId);
    case 'repeatRecord':
      return queueKeys(parts.queue).repeatRecord(parts.name);
    case 'stream':
      return parts.archived ? queueKeys(parts.queue).archived(parts.name) : queueKeys(parts.queue).stream(parts.name);
    case 'deadLetters':
      return queueKeys(parts.queue).deadLetters(parts.name);
    case 'streamPart':
      return queueKeys(parts.queue).streamPart(parts.name, parts.part);
    case 'reserve':
      return parts.member === 'migration' ? migrationKey(parts.queue) : RESERVE_MEMBER[parts.member];
    case 'cache':
      return cacheKey(parts.table, parts.id);
    case 'cacheEntry':
      return cacheEntryKey(parts.table, parts.key);
    case 'cacheLease':
      return cacheLeaseKey(parts.table, parts.key);
    case 'cacheTag':
      return cacheTagKey(parts.table, parts.tag);
    case 'cacheLog':
      return cacheLogKey(parts.table);
    case 'unclassified':
      return parts.key;
  }
}
