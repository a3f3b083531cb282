import { InvalidArgumentError } from '../errors/validation.js';
import { MalformedReplyError } from '../errors/wire.js';
import { read, type Read } from './read.js';
import { count, list, mapOf, text } from '../reply-shapes.js';
import { positiveArg as positive, textArg } from './args.js';
import { parseOneStreamRead, type StreamEntryReply } from './stream-entries.js';
import { isStreamId } from './stream-ids.js';

/** Which entries an `XREADGROUP` of one stream reads. */
export interface GroupReadInput {
  /** The stream key. */
  readonly key: string;
  /** The consumer group. */
  readonly group: string;
  /** The consumer reading (created on its first read). */
  readonly consumer: string;
  /** `>` (default): entries never delivered to the group; an id: this consumer's pending history after it. */
  readonly after?: string;
  /** Entries per read (`COUNT`). */
  readonly count?: number;
  /** Wait up to this long for an entry (`BLOCK`); absent: answer at once. */
  readonly blockMs?: number;
}

/**
 * `XREADGROUP GROUP g c [BLOCK ms] [COUNT n] STREAMS key >|id`: entries of one stream for a consumer;
 * none on a timeout. A history entry deleted meanwhile comes back with `fields: null`.
 */
export function xreadgroup(input: GroupReadInput): Read<readonly StreamEntryReply[]> {
  const key = textArg('key', input.key);
  const after = input.after ?? '>';
  if (after !== '>' && !isStreamId(after)) throw new InvalidArgumentError('after', `must be ">" or "<ms>-<seq>", got ${JSON.stringify(after)}`);
  const args = ['GROUP', textArg('group', input.group), textArg('consumer', input.consumer)];
  if (input.blockMs !== undefined) args.push('BLOCK', positive('blockMs', input.blockMs));
  if (input.count !== undefined) args.push('COUNT', positive('count', input.count));
  args.push('STREAMS', key, after);
  return read('XREADGROUP', args, (reply) => parseOneStreamRead(reply, key, 'XREADGROUP'));
}

/** One consumer group of a stream, as `XINFO GROUPS` describes it. */
export interface GroupInfo {
  /** The group's name. */
  readonly name: string;
  /** How many consumers it has. */
  readonly consumers: number;
  /** Entries delivered and not yet acked. */
  readonly pending: number;
  /** The last id delivered to any of its consumers. */
  readonly lastDeliveredId: string;
  /** Entries not yet delivered to the group; `null` when the server cannot tell (before Redis 7, or across deletions). */
  readonly lag: number | null;
  /** Entries the group has read; `null` when the server cannot tell (before Redis 7). */
  readonly entriesRead: number | null;
}

/** `XINFO GROUPS key`: the stream's consumer groups. The server refuses a stream that does not exist (`no such key`). */
export function xinfoGroups(input: { readonly key: string }): Read<GroupInfo[]> {
  return read('XINFO GROUPS', [textArg('key', input.key)], (reply) =>
    list('XINFO GROUPS', reply).map((item) => {
      const m = mapOf('XINFO GROUPS', reply, item);
      const lag = m.get('lag');
      const entriesRead = m.get('entries-read');
      const last = m.get('last-delivered-id');
      if (!isStreamId(last)) throw new MalformedReplyError('XINFO GROUPS', reply, 'last-delivered-id');
      return {
        name: text('XINFO GROUPS', reply, m.get('name')),
        consumers: count('XINFO GROUPS', reply, m.get('consumers')),
        pending: count('XINFO GROUPS', reply, m.get('pending')),
        lastDeliveredId: last,
        lag: lag === null || lag === undefined ? null : count('XINFO GROUPS', reply, lag),
        entriesRead: entriesRead === null || entriesRead === undefined ? null : count('XINFO GROUPS', reply, entriesRead),
      };
    }),
  );
}

/** One consumer of a group, as `XINFO CONSUMERS` describes it. */
export interface ConsumerInfo {
  /** The consumer's name. */
  readonly name: string;
  /** Entries delivered to it and not yet acked. */
  readonly pending: number;
  /** Ms since it last read or claimed (server clock). */
  readonly idleMs: number;
}

/** `XINFO CONSUMERS key group`: the group's consumers. */
export function xinfoConsumers(input: { readonly key: string; readonly group: string }): Read<ConsumerInfo[]> {
  return read('XINFO CONSUMERS', [textArg('key', input.key), textArg('group', input.group)], (reply) =>
    list('XINFO CONSUMERS', reply).map((item) => {
      const m = mapOf('XINFO CONSUMERS', reply, item);
      return { name: text('XINFO CONSUMERS', reply, m.get('name')), pending: count('XINFO CONSUMERS', reply, m.get('pending')), idleMs: count('XINFO CONSUMERS', reply, m.get('idle')) };
    }),
  );
}

/** A group's pending summary, as `XPENDING key group` answers it. */
export interface PendingSummary {
  /** Entries delivered and not yet acked. */
  readonly count: number;
  /** The oldest pending id; `undefined` when nothing is pending. */
  readonly oldest: string | undefined;
  /** The newest pending id; `undefined` when nothing is pending. */
  readonly newest: string | undefined;
}

/** `XPENDING key group`: how many entries the group has delivered and not had acked, and their id range. */
export function xpendingSummary(input: { readonly key: string; readonly group: string }): Read<PendingSummary> {
  return read('XPENDING', [textArg('key', input.key), textArg('group', input.group)], (reply) => {
    const summary = list('XPENDING', reply);
    if (summary.length !== 4) throw new MalformedReplyError('XPENDING', reply, 'not [count, oldest, newest, consumers]');
    const [n, oldest, newest] = summary;
    const id = (value: unknown): string | undefined => {
      if (value === null) return undefined;
      if (!isStreamId(value)) throw new MalformedReplyError('XPENDING', reply, 'an id is not <ms>-<seq>');
      return value;
    };
    return { count: count('XPENDING', reply, n), oldest: id(oldest), newest: id(newest) };
  });
}
