import type { BrandedId } from '../ids/branded.js';
import { ID_LENGTH } from '../ids/codec.js';
import { isBrandedId } from '../ids/guards.js';
import { isCacheEntryKey, isCacheTag } from './cache-keys.js';
import { isCacheTable, isDedupId, isQueueName, isRepeatName, isStreamName } from './names.js';
import { isFixedType, isJobSub, isMetric, isStreamPart } from './registry.js';
import type { FixedType, JobSub, Metric, StreamPart } from './registry.js';
import { RESERVE_PREFIX } from './reserve.js';

/**
 * A key read back into its parts, one variant per form of the grammar (protocol.md §3.1) plus the L2
 * cache keys (cache.md §2). `unclassified` holds everything else, so parsing never throws.
 */
export type ParsedKey =
  | { readonly kind: 'fixed'; readonly queue: string; readonly type: FixedType }
  | { readonly kind: 'metrics'; readonly queue: string; readonly metric: Metric; readonly data: boolean }
  | { readonly kind: 'job'; readonly queue: string; readonly id: BrandedId; readonly sub: JobSub | null }
  | { readonly kind: 'lane'; readonly queue: string; readonly group: BrandedId }
  | { readonly kind: 'dedup'; readonly queue: string; readonly dedupId: string }
  | { readonly kind: 'repeatRecord'; readonly queue: string; readonly name: string }
  | { readonly kind: 'stream'; readonly queue: string; readonly name: string; readonly archived: boolean }
  | { readonly kind: 'deadLetters'; readonly queue: string; readonly name: string }
  | { readonly kind: 'streamPart'; readonly queue: string; readonly name: string; readonly part: StreamPart }
  | { readonly kind: 'reserve'; readonly member: 'version' | 'locks' | 'bundle' }
  | { readonly kind: 'reserve'; readonly member: 'migration'; readonly queue: string }
  | { readonly kind: 'cache'; readonly table: string; readonly id: BrandedId }
  | { readonly kind: 'cacheEntry' | 'cacheLease'; readonly table: string; readonly key: string }
  | { readonly kind: 'cacheTag'; readonly table: string; readonly tag: string }
  | { readonly kind: 'cacheLog'; readonly table: string }
  | { readonly kind: 'unclassified'; readonly key: string };

/** The `kind` of a {@link ParsedKey}. */
export type ParsedKeyKind = ParsedKey['kind'];

const QUEUE_PREFIX = 'emq:{';
const CACHE_PREFIX = 'ecc:{';
const ARCHIVED = ':archived';
const DEAD = ':dead';
const LANE_TAIL = ':pending';

/**
 * Splits `<prefix><name>}:<rest>`, where the name ends at the first `}`. Returns `null` when the
 * brace or the colon after it is missing; the name is checked by the caller.
 */
function splitTagged(key: string, prefix: string): readonly [string, string] | null {
  const close = key.indexOf('}', prefix.length);
  if (close < 0 || key.charCodeAt(close + 1) !== 0x3a) return null;
  return [key.slice(prefix.length, close), key.slice(close + 2)];
}

function parseJob(queue: string, rest: string): ParsedKey | null {
  const id = rest.slice(0, ID_LENGTH);
  if (!isBrandedId(id)) return null;
  if (rest.length === ID_LENGTH) return { kind: 'job', queue, id, sub: null };
  const sub = rest.slice(ID_LENGTH + 1);
  if (rest.charCodeAt(ID_LENGTH) !== 0x3a || !isJobSub(sub)) return null;
  return { kind: 'job', queue, id, sub };
}

function parseLane(queue: string, rest: string): ParsedKey | null {
  const group = rest.slice(0, ID_LENGTH);
  if (!isBrandedId(group) || rest.slice(ID_LENGTH) !== LANE_TAIL) return null;
  return { kind: 'lane', queue, group };
}

function parseStream(queue: string, rest: string): ParsedKey | null {
  // A stream name has no `:`, so a trailing `:archived` or `:dead` can only be a suffix.
  const colon = rest.indexOf(':');
  if (colon > 0) {
    const part = rest.slice(colon + 1);
    const partName = rest.slice(0, colon);
    if (isStreamPart(part)) return isStreamName(partName) ? { kind: 'streamPart', queue, name: partName, part } : null;
  }
  if (rest.endsWith(DEAD)) {
    const name = rest.slice(0, -DEAD.length);
    return isStreamName(name) ? { kind: 'deadLetters', queue, name } : null;
  }
  const archived = rest.endsWith(ARCHIVED);
  const name = archived ? rest.slice(0, -ARCHIVED.length) : rest;
  return isStreamName(name) ? { kind: 'stream', queue, name, archived } : null;
}

function parseSuffix(queue: string, suffix: string): ParsedKey | null {
  if (isFixedType(suffix)) return { kind: 'fixed', queue, type: suffix };
  if (suffix.startsWith('job:')) return parseJob(queue, suffix.slice(4));
  if (suffix.startsWith('g:')) return parseLane(queue, suffix.slice(2));
  if (suffix.startsWith('stream:')) return parseStream(queue, suffix.slice(7));
  if (suffix.startsWith('de:')) {
    const dedupId = suffix.slice(3);
    return isDedupId(dedupId) ? { kind: 'dedup', queue, dedupId } : null;
  }
  if (suffix.startsWith('repeat:')) {
    const name = suffix.slice(7);
    return isRepeatName(name) ? { kind: 'repeatRecord', queue, name } : null;
  }
  if (suffix.startsWith('metrics:')) {
    const data = suffix.endsWith(':data');
    const metric = suffix.slice(8, data ? -5 : undefined);
    return isMetric(metric) ? { kind: 'metrics', queue, metric, data } : null;
  }
  return null;
}

function parseQueueKey(key: string): ParsedKey | null {
  const parts = splitTagged(key, QUEUE_PREFIX);
  if (parts === null || !isQueueName(parts[0])) return null;
  return parseSuffix(parts[0], parts[1]);
}

function parseReserve(key: string): ParsedKey | null {
  const member = key.slice(RESERVE_PREFIX.length);
  if (member === 'version' || member === 'locks' || member === 'bundle') return { kind: 'reserve', member };
  if (!member.startsWith('migration:')) return null;
  const queue = member.slice(10);
  return isQueueName(queue) ? { kind: 'reserve', member: 'migration', queue } : null;
}

function parseCacheKey(key: string): ParsedKey | null {
  const parts = splitTagged(key, CACHE_PREFIX);
  if (parts === null || !isCacheTable(parts[0])) return null;
  const [table, rest] = parts;
  if (isBrandedId(rest)) return { kind: 'cache', table, id: rest };
  // The keyed namespace forms [TS]; none can be a branded id, which starts with three capitals.
  if (rest === 'log') return { kind: 'cacheLog', table };
  if (rest.startsWith('k:') && isCacheEntryKey(rest.slice(2))) return { kind: 'cacheEntry', table, key: rest.slice(2) };
  if (rest.startsWith('l:') && isCacheEntryKey(rest.slice(2))) return { kind: 'cacheLease', table, key: rest.slice(2) };
  if (rest.startsWith('tag:') && isCacheTag(rest.slice(4))) return { kind: 'cacheTag', table, tag: rest.slice(4) };
  return null;
}

/**
 * Classifies any key (protocol.md §3.4). Total: every string yields a variant, and a key that is not
 * exactly a form this build would produce (bad name, unknown suffix, malformed id, a reserve key that
 * is not a member, a pub/sub channel) is `unclassified` rather than guessed at.
 *
 * Round-trip law: for every valid set of parts, `parseKey(formatKey(parts))` equals the parts, and for
 * every classified key `k`, `formatKey(parseKey(k)) === k`.
 */
export function parseKey(key: string): ParsedKey {
  let parsed: ParsedKey | null = null;
  if (key.startsWith(QUEUE_PREFIX)) parsed = parseQueueKey(key);
  else if (key.startsWith(RESERVE_PREFIX)) parsed = parseReserve(key);
  else if (key.startsWith(CACHE_PREFIX)) parsed = parseCacheKey(key);
  return parsed ?? { kind: 'unclassified', key };
}
