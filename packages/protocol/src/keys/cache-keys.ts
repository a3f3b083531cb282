import type { BrandedId } from '../ids/branded.js';
import { assertBrandedId } from '../ids/guards.js';
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
