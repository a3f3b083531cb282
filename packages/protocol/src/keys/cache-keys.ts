import type { BrandedId } from '../ids/branded.js';
import { assertBrandedId } from '../ids/guards.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { assertCacheTable } from './names.js';

/**
 * The prefix shared by a table's row keys, `ecc:{<table>}:`, as used for `CLIENT TRACKING … BCAST
 * PREFIX` (cache.md §7.5).
 *
 * @throws InvalidNameError for a bad table name.
 */
export function cachePrefix(table: string): string {
  assertCacheTable(table);
  return `ecc:{${table}}:`;
}

/**
 * The L2 key of one cached row, `ecc:{<table>}:<id>` (cache.md §2). The table is the hashtag, so a
 * table's rows and its coherence channel share a slot. The id's namespace is the table's concern (the
 * kind law); here any valid branded id is accepted.
 *
 * @throws InvalidNameError for a bad table name, MalformedIdError for a bad id.
 */
export function cacheKey(table: string, id: BrandedId): string {
  assertCacheTable(table);
  assertBrandedId(id);
  return `ecc:{${table}}:${id}`;
}

/**
 * The coherence pub/sub channel of a table, `ecc:{<table>}:coh`. A channel, not a key, so it is not
 * in the keyspace grammar; `coh` cannot collide with a row key because it is not a 14-byte id.
 *
 * @throws InvalidNameError for a bad table name.
 */
export function cacheChannel(table: string): string {
  assertCacheTable(table);
  return `ecc:{${table}}:coh`;
}

/**
 * The queue that carries a table's coherence lanes, `ecc.coh.<table>`. The 120-byte table cap keeps
 * it within the 128-byte queue grammar.
 *
 * @throws InvalidNameError for a bad table name.
 */
export function cohQueueName(table: string): string {
  assertCacheTable(table);
  return `ecc.coh.${table}`;
}

/** The longest key of a keyed cache namespace, in UTF-16 code units. */
export const MAX_CACHE_ENTRY_KEY = 1024;
/** The longest tag of a keyed cache namespace. */
export const MAX_CACHE_TAG = 256;

/**
 * Why `value` is not a usable key (or tag) of a keyed namespace, or `null` when it is: a non-empty
 * string of at most `max` units with no `{`, `}` (which would move the hashtag) and no control
 * characters (the coherence log joins keys with a newline).
 */
function entryNameDefect(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return `must be a string, got ${value === null ? 'null' : typeof value}`;
  if (value.length === 0 || value.length > max) return `must be 1 to ${max} characters`;
  // eslint-disable-next-line no-control-regex -- the control characters are exactly what is refused
  if (/[{}\u0000-\u001f\u007f]/.test(value)) return 'must not contain { } or control characters';
  return null;
}

/** True when `value` is a valid key of a keyed cache namespace ([TS]). */
export function isCacheEntryKey(value: unknown): value is string {
  return entryNameDefect(value, MAX_CACHE_ENTRY_KEY) === null;
}

/**
 * Checks a key of a keyed cache namespace before anything is built from it.
 *
 * @throws InvalidArgumentError when it is empty, longer than 1024, or holds `{`, `}` or a control character.
 */
export function assertCacheEntryKey(value: unknown, field = 'key'): asserts value is string {
  const defect = entryNameDefect(value, MAX_CACHE_ENTRY_KEY);
  if (defect !== null) throw new InvalidArgumentError(field, defect);
}

/** True when `value` is a valid tag of a keyed cache namespace ([TS]). */
export function isCacheTag(value: unknown): value is string {
  return entryNameDefect(value, MAX_CACHE_TAG) === null;
}

/**
 * Checks a tag of a keyed cache namespace.
 *
 * @throws InvalidArgumentError when it is empty, longer than 256, or holds `{`, `}` or a control character.
 */
export function assertCacheTag(value: unknown, field = 'tag'): asserts value is string {
  const defect = entryNameDefect(value, MAX_CACHE_TAG);
  if (defect !== null) throw new InvalidArgumentError(field, defect);
}

/**
 * The L2 key of an entry of a keyed namespace, `ecc:{<namespace>}:k:<key>` ([TS]). The `k:` form
 * cannot collide with a declared table's row `ecc:{<table>}:<id>`: a branded id starts with three
 * capital letters, never `k:`.
 *
 * @throws InvalidNameError for a bad namespace; InvalidArgumentError for a bad key.
 */
export function cacheEntryKey(namespace: string, key: string): string {
  assertCacheTable(namespace);
  assertCacheEntryKey(key);
  return `ecc:{${namespace}}:k:${key}`;
}

/**
 * The load lease of an entry, `ecc:{<namespace>}:l:<key>` ([TS]): held by the one caller, in any
 * process, that runs the loader for a missing entry.
 *
 * @throws InvalidNameError for a bad namespace; InvalidArgumentError for a bad key.
 */
export function cacheLeaseKey(namespace: string, key: string): string {
  assertCacheTable(namespace);
  assertCacheEntryKey(key);
  return `ecc:{${namespace}}:l:${key}`;
}

/**
 * The keys written with a tag, `ecc:{<namespace>}:tag:<tag>` ([TS]): a hash of entry key to the
 * version of the write that carried the tag, so a tag delete spares an entry re-written without it.
 *
 * @throws InvalidNameError for a bad namespace; InvalidArgumentError for a bad tag.
 */
export function cacheTagKey(namespace: string, tag: string): string {
  assertCacheTable(namespace);
  assertCacheTag(tag);
  return `ecc:{${namespace}}:tag:${tag}`;
}

/**
 * The coherence log of a keyed namespace, `ecc:{<namespace>}:log` ([TS]): a bounded stream of
 * `v` (version), `o` (`s` set, `d` delete, `c` clear, `r` lease released) and `k` (keys, joined by
 * newlines), which every process reads from its last applied entry, so a reconnect replays what it
 * missed.
 *
 * @throws InvalidNameError for a bad namespace.
 */
export function cacheLogKey(namespace: string): string {
  assertCacheTable(namespace);
  return `ecc:{${namespace}}:log`;
}
