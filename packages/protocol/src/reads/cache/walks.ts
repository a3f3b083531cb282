import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import { cacheEntryKey, cacheTagKey } from '../../keys/cache-keys.js';
import { read, type Read } from '../read.js';

function strings(command: string, reply: unknown): string[] {
  if (!Array.isArray(reply)) throw new MalformedReplyError(command, reply, 'expected an array');
  return reply.map((r: unknown) => {
    if (typeof r === 'string') return r;
    if (Buffer.isBuffer(r)) return r.toString();
    throw new MalformedReplyError(command, reply, 'expected strings');
  });
}

/**
 * `HKEYS ecc:{<namespace>}:tag:<tag>`: the entry keys written with a tag ([TS]); none when the tag
 * hash is absent.
 *
 * @throws InvalidNameError for a bad namespace; InvalidArgumentError for a bad tag.
 */
export function cacheTagMembers(input: { readonly namespace: string; readonly tag: string }): Read<string[]> {
  return read('HKEYS', [cacheTagKey(input.namespace, input.tag)], (reply) => strings('HKEYS', reply));
}

/** One `SCAN` step over a namespace's entries: the cursor to continue from (`'0'` when done) and the entry keys found. */
export interface EntryScanStep {
  readonly cursor: string;
  /** Entry keys (the part after `ecc:{<namespace>}:k:`). */
  readonly keys: string[];
}

/**
 * `SCAN cursor MATCH ecc:{<namespace>}:k:* COUNT n`, sent to one master (`connection.masters()`): a
 * step of the walk over a keyed namespace's entries. Keys are answered without their prefix.
 *
 * @throws InvalidNameError for a bad namespace; InvalidArgumentError for a bad cursor or count.
 */
export function cacheEntryScan(input: { readonly namespace: string; readonly cursor: string; readonly count: number }): Read<EntryScanStep> {
  const prefix = cacheEntryKey(input.namespace, 'x').slice(0, -1);
  if (typeof input.cursor !== 'string' || !/^\d{1,20}$/.test(input.cursor)) throw new InvalidArgumentError('cursor', `must be digits, got ${JSON.stringify(input.cursor)}`);
  if (!Number.isSafeInteger(input.count) || input.count < 1) throw new InvalidArgumentError('count', `must be a positive integer, got ${String(input.count)}`);
  return read('SCAN', [input.cursor, 'MATCH', `${prefix}*`, 'COUNT', String(input.count)], (reply) => {
    if (!Array.isArray(reply) || reply.length !== 2) throw new MalformedReplyError('SCAN', reply, 'expected [cursor, keys]');
    const [next, found] = reply as [unknown, unknown];
    const cursor = Buffer.isBuffer(next) ? next.toString() : next;
    if (typeof cursor !== 'string' || !/^\d+$/.test(cursor)) throw new MalformedReplyError('SCAN', reply, 'expected a numeric cursor');
    const keys = strings('SCAN', found);
    if (keys.some((k) => !k.startsWith(prefix))) throw new MalformedReplyError('SCAN', reply, `a key outside ${prefix}*`);
    return { cursor, keys: keys.map((k) => k.slice(prefix.length)) };
  });
}
