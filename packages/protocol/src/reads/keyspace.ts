import { InvalidArgumentError } from '../errors/validation.js';
import { MalformedReplyError } from '../errors/wire.js';
import { read, type Read } from './read.js';
import { count, integer, list, text } from '../reply-shapes.js';
import { positiveArg, textArg } from './args.js';

/** One step of a `SCAN`. */
export interface ScanInput {
  /** Where the step starts: `'0'` first, then the cursor the previous step answered. */
  readonly cursor: string;
  /** Only keys matching this glob (`MATCH`). */
  readonly match?: string;
  /** A hint of how many keys the step looks at (`COUNT`). */
  readonly count?: number;
  /** Only keys of this type (`TYPE`), e.g. `stream`, `hash`. */
  readonly type?: string;
}

/** What one `SCAN` step answered. */
export interface ScanStep {
  /** Where the next step starts; `'0'` once the walk is complete. */
  readonly cursor: string;
  /** The keys this step found (possibly none, possibly seen before). */
  readonly keys: string[];
}

/** `SCAN cursor [MATCH p] [COUNT n] [TYPE t]`: one step of a walk of one server's keys. */
export function scan(input: ScanInput): Read<ScanStep> {
  if (typeof input.cursor !== 'string' || !/^\d+$/.test(input.cursor)) throw new InvalidArgumentError('cursor', `must be a decimal cursor, got ${JSON.stringify(input.cursor)}`);
  const args = [input.cursor];
  if (input.match !== undefined) args.push('MATCH', textArg('match', input.match));
  if (input.count !== undefined) args.push('COUNT', positiveArg('count', input.count));
  if (input.type !== undefined) args.push('TYPE', textArg('type', input.type));
  return read('SCAN', args, (reply) => {
    const step = list('SCAN', reply);
    if (step.length !== 2) throw new MalformedReplyError('SCAN', reply, 'not [cursor, keys]');
    const cursor = text('SCAN', reply, step[0]);
    if (!/^\d+$/.test(cursor)) throw new MalformedReplyError('SCAN', reply, 'the cursor is not a number');
    return { cursor, keys: list('SCAN', reply, step[1]).map((key) => text('SCAN', reply, key)) };
  });
}

/** `PTTL key`: the key's time to live in ms; `null` when it never expires, `undefined` when there is no key. */
export function pttl(input: { readonly key: string }): Read<number | null | undefined> {
  return read('PTTL', [textArg('key', input.key)], (reply) => {
    const ms = integer('PTTL', reply);
    if (ms === -2) return undefined;
    if (ms === -1) return null;
    if (ms < 0) throw new MalformedReplyError('PTTL', reply, 'a negative ttl other than -1 or -2');
    return ms;
  });
}

/** `HLEN key`: how many fields the hash holds (0 when there is no key). */
export function hlen(input: { readonly key: string }): Read<number> {
  return read('HLEN', [textArg('key', input.key)], (reply) => count('HLEN', reply));
}
