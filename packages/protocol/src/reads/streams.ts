import { InvalidArgumentError } from '../errors/validation.js';
import { MalformedReplyError } from '../errors/wire.js';
import { read, type Read } from './read.js';
import { mapOf } from '../reply-shapes.js';
import { positiveArg as positive, textArg } from './args.js';
import { parseOneStreamRead, parseStreamEntries, type StreamEntryReply } from './stream-entries.js';
import { isStreamId } from './stream-ids.js';

/** A range bound: `-`/`+`, an id, or an exclusive `(id`. */
export function bound(name: string, value: string): string {
  const id = value.startsWith('(') ? value.slice(1) : value;
  if (value === '-' || value === '+' || isStreamId(id) || /^\d{1,20}$/.test(value)) return value;
  throw new InvalidArgumentError(name, `must be "-", "+", "<ms>-<seq>", "(<ms>-<seq>" or "<ms>", got ${JSON.stringify(value)}`);
}

/** Which entries an `XRANGE`/`XREVRANGE` reads. */
export interface RangeInput {
  /** The stream key. */
  readonly key: string;
  /** The low bound for `XRANGE`, the high one for `XREVRANGE`. Default `-` (or `+` reversed). */
  readonly start?: string;
  /** The other bound. Default `+` (or `-` reversed). */
  readonly end?: string;
  /** At most this many (`COUNT`). */
  readonly count?: number;
}

/** `XREVRANGE key start end [COUNT n]`: entries newest first; `start` is the high bound. */
export function xrevrange(input: RangeInput): Read<StreamEntryReply[]> {
  const args = [textArg('key', input.key), bound('start', input.start ?? '+'), bound('end', input.end ?? '-')];
  if (input.count !== undefined) args.push('COUNT', positive('count', input.count));
  return read('XREVRANGE', args, (reply) => parseStreamEntries(reply, 'XREVRANGE'));
}

/** `XREVRANGE key + - COUNT 1`: the id of the newest entry, `undefined` for an empty or absent stream. */
export function xtop(input: { readonly key: string }): Read<string | undefined> {
  return read('XREVRANGE', [textArg('key', input.key), '+', '-', 'COUNT', '1'], (reply) => parseStreamEntries(reply, 'XREVRANGE')[0]?.id);
}

/** Which entries an `XREAD` of one stream reads. */
export interface StreamReadInput {
  /** The stream key. */
  readonly key: string;
  /** Entries after this id (exclusive). */
  readonly after: string;
  /** At most this many (`COUNT`). */
  readonly count?: number;
  /** Wait up to this long for an entry (`BLOCK`); absent: answer at once. */
  readonly blockMs?: number;
}

/** `XREAD [COUNT n] [BLOCK ms] STREAMS key after`: the entries of one stream after an id; none on a timeout. */
export function xread(input: StreamReadInput): Read<readonly StreamEntryReply[]> {
  const k = textArg('key', input.key);
  if (!isStreamId(input.after)) throw new InvalidArgumentError('after', `must be "<ms>-<seq>", got ${JSON.stringify(input.after)}`);
  const args: string[] = [];
  if (input.count !== undefined) args.push('COUNT', positive('count', input.count));
  if (input.blockMs !== undefined) args.push('BLOCK', positive('blockMs', input.blockMs));
  args.push('STREAMS', k, input.after);
  return read('XREAD', args, (reply) => parseOneStreamRead(reply, k, 'XREAD'));
}

/** What `XINFO STREAM` tells about a stream, the parts Echo reads. */
export interface StreamInfo {
  /** Entries it holds. */
  readonly length: number;
  /** The newest id it ever minted (kept when that entry is gone). */
  readonly lastGeneratedId: string;
  /** The highest id ever removed by `XDEL` or a trim; `0-0` when none was (Redis 7 and later). */
  readonly maxDeletedEntryId: string;
  /** The id of the oldest entry the stream still holds, `undefined` when it is empty. */
  readonly firstEntryId: string | undefined;
  /** The oldest entry the stream still holds, `undefined` when it is empty. */
  readonly firstEntry: StreamEntryReply | undefined;
  /** The newest entry the stream holds, `undefined` when it is empty. */
  readonly lastEntry: StreamEntryReply | undefined;
}

/** A first/last entry of `XINFO STREAM`: `[id, fields]`, nil for an empty stream. */
function edgeEntry(reply: unknown, value: unknown): StreamEntryReply | undefined {
  if (value === null || value === undefined) return undefined;
  try {
    return parseStreamEntries([value], 'XINFO STREAM')[0];
  } catch {
    throw new MalformedReplyError('XINFO STREAM', reply, 'first-entry or last-entry is not [id, fields]');
  }
}

/**
 * Parses an `XINFO STREAM` reply (a flat list in RESP2 and under the client's default RESP3 mapping,
 * an object or `Map` under its `resp3` mapping).
 *
 * @throws MalformedReplyError when a field Echo reads is missing or of the wrong type.
 */
export function parseStreamInfo(reply: unknown): StreamInfo {
  const map = mapOf('XINFO STREAM', reply);
  const length = Number(map.get('length'));
  const last = map.get('last-generated-id');
  // Servers before Redis 7 do not track deletions; reading none is the safe default for them.
  const deleted = map.get('max-deleted-entry-id') ?? '0-0';
  if (!Number.isSafeInteger(length) || !isStreamId(last) || !isStreamId(deleted)) throw new MalformedReplyError('XINFO STREAM', reply, 'length, last-generated-id or max-deleted-entry-id');
  const firstEntry = edgeEntry(reply, map.get('first-entry'));
  return { length, lastGeneratedId: last, maxDeletedEntryId: deleted, firstEntryId: firstEntry?.id, firstEntry, lastEntry: edgeEntry(reply, map.get('last-entry')) };
}

/**
 * `XINFO STREAM key`: the stream's length, newest and oldest ids and the highest deleted id. The
 * server refuses a stream that does not exist (`ERR no such key`): see {@link isNoSuchKey}.
 */
export function xinfoStream(input: { readonly key: string }): Read<StreamInfo> {
  return read('XINFO STREAM', [textArg('key', input.key)], parseStreamInfo);
}

/** True for the server's refusal to describe a stream that does not exist (`XINFO STREAM` on no key). */
export function isNoSuchKey(error: unknown): boolean {
  return error instanceof Error && /\bno such key\b/i.test(error.message);
}
