export {
  MAX_CACHE_ENTRY_KEY,
  MAX_CACHE_TAG,
  assertCacheEntryKey,
  assertCacheTag,
  cacheChannel,
  cacheEntryKey,
  cacheKey,
  cacheLeaseKey,
  cacheLogKey,
  cachePrefix,
  cacheTagKey,
  cohQueueName,
  isCacheEntryKey,
  isCacheTag,
} from './cache-keys.js';
export { formatKey } from './format-key.js';
export {
  MAX_CACHE_TABLE,
  MAX_DEDUP_ID,
  MAX_QUEUE_NAME,
  MAX_REPEAT_NAME,
  MAX_STREAM_NAME,
  assertCacheTable,
  assertDedupId,
  assertQueueName,
  assertRepeatName,
  assertStreamName,
  isCacheTable,
  isDedupId,
  isQueueName,
  isRepeatName,
  isStreamName,
} from './names.js';
export { parseKey } from './parse-key.js';
export type { ParsedKey, ParsedKeyKind } from './parse-key.js';
export { queueKeys } from './queue-keys.js';
export type { QueueKeys } from './queue-keys.js';
export { FIXED_TYPES, JOB_SUBS, METRICS, STREAM_PARTS, isFixedType, isJobSub, isMetric, isStreamPart } from './registry.js';
export type { FixedType, JobSub, Metric, StreamPart } from './registry.js';
export { BUNDLE_KEY, LOCKS_KEY, RESERVE_PREFIX, VERSION_KEY, migrationKey } from './reserve.js';
export { SLOT_COUNT, crc16, hashtag, sameSlot, slot } from './slot.js';
