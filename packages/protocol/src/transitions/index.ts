/**
 * The typed transitions: one pure function per script of the catalog, each building its call from
 * the script header (KEYS and ARGV in header order) and pairing it with its reply reader. Pillars
 * send them with {@link execute}; they never see a KEYS array or a script name.
 *
 * @packageDocumentation
 */
export * from './queue.js';
export { cacheClear, cacheDelete, cacheExpire, cachePull, cacheRead, cacheRelease, cacheTagDelete, cacheWrite, coherenceDrop, type CacheExpireOutcome, type CacheReadReply } from './cache.js';
export {
  streamClaim,
  streamDrop,
  streamSettle,
  streamRedrive,
  streamAppend,
  streamAppendBatch,
  streamTouch,
  streamOrderAdmit,
  streamGroupForget,
  type DedupOutcome,
  type DedupRecord,
  type AppendRefusal,
  type StreamAppendBatchInput,
  type OrderVerdict,
  type OrderedEntry,
  type StreamOrderAdmitInput,
  type ClaimedEntry,
  type SettleEntry,
  type StreamClaimInput,
  type StreamClaimReply,
  type StreamSettleInput,
  type StreamSettleReply,
  type StreamRedriveReply,
} from './streams.js';
