import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import type { BrandedId } from '../../ids/branded.js';
import { cacheKey } from '../../keys/cache-keys.js';
import { read, type Read } from '../read.js';

/** A frame as `GET`/`MGET` answer it with buffer replies: the bytes, or `null` for a missing key. */
function frame(command: string, reply: unknown): Buffer | null {
  if (reply === null || Buffer.isBuffer(reply)) return reply;
  throw new MalformedReplyError(command, reply, 'expected a bulk string or nil');
}

/** An L2 key the cache reads: `ecc:{<name>}:…`, built by the key law (`cacheKey`, `cacheEntryKey`). */
function cacheL2Key(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.startsWith('ecc:{')) throw new InvalidArgumentError(field, `must be a cache key ecc:{<name>}:…, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * `GET ecc:{<table>}:<id>` with a buffer reply: a declared table's L2 frame (`version ++ value`,
 * cache.md §2), or `null` when the row is missing.
 *
 * @throws InvalidNameError for a bad table; MalformedIdError for a bad id.
 */
export function cacheRowGet(input: { readonly table: string; readonly id: BrandedId }): Read<Buffer | null> {
  return read('GET', [cacheKey(input.table, input.id)], (reply) => frame('GET', reply), { buffers: true });
}

/**
 * `MGET key…` with buffer replies: the frames at several cache keys of one slot (a keyed namespace's
 * entries share its hashtag), each `null` when missing, in the order asked.
 *
 * @throws InvalidArgumentError for an empty list or a key outside the cache's keyspace.
 */
export function cacheFramesGet(input: { readonly keys: readonly string[] }): Read<(Buffer | null)[]> {
  if (!Array.isArray(input.keys) || input.keys.length === 0) throw new InvalidArgumentError('keys', 'must be a non-empty array');
  const keys = input.keys.map((k, i) => cacheL2Key(k, `keys[${String(i)}]`));
  return read(
    'MGET',
    keys,
    (reply) => {
      if (!Array.isArray(reply) || reply.length !== keys.length) throw new MalformedReplyError('MGET', reply, `expected an array of ${String(keys.length)}`);
      return reply.map((r: unknown) => frame('MGET', r));
    },
    { buffers: true },
  );
}
