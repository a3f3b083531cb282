import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import type { BrandedId } from '../../ids/branded.js';
import { cacheKey } from '../../keys/cache-keys.js';
import { write, type Write } from '../write.js';

/**
 * `SET ecc:{<table>}:<id> <frame> PX <ttlMs>`: a declared table's L2 row (cache.md §5), the frame
 * already `version ++ value`.
 *
 * @throws InvalidNameError for a bad table; MalformedIdError for a bad id; InvalidArgumentError for
 *   an empty frame or a ttl that is not a positive integer.
 */
export function cacheRowSet(input: { readonly table: string; readonly id: BrandedId; readonly frame: Buffer; readonly ttlMs: number }): Write<void> {
  if (!Buffer.isBuffer(input.frame) || input.frame.length === 0) throw new InvalidArgumentError('frame', 'must be a non-empty Buffer');
  if (!Number.isSafeInteger(input.ttlMs) || input.ttlMs < 1) throw new InvalidArgumentError('ttlMs', `must be a positive integer, got ${String(input.ttlMs)}`);
  return write('SET', [cacheKey(input.table, input.id), input.frame, 'PX', String(input.ttlMs)], (reply) => {
    if (reply !== 'OK') throw new MalformedReplyError('SET', reply, 'expected OK');
  });
}

/**
 * `DEL ecc:{<table>}:<id>`: the admin delete of a declared table's row, whatever its version
 * (cache.md §5). Answers whether a row was there.
 *
 * @throws InvalidNameError for a bad table; MalformedIdError for a bad id.
 */
export function cacheRowDelete(input: { readonly table: string; readonly id: BrandedId }): Write<boolean> {
  return write('DEL', [cacheKey(input.table, input.id)], (reply) => {
    if (reply !== 0 && reply !== 1) throw new MalformedReplyError('DEL', reply, 'expected 0 or 1');
    return reply === 1;
  });
}
