import { positiveArg as positive, textArg } from './args.js';
import { read, type Read } from './read.js';
import { parseStreamEntries, type StreamEntryReply } from './stream-entries.js';
import { bound, type RangeInput } from './streams.js';

/*
 * Apart from the stream reads in streams.ts because only the bus walks a stream forward by range:
 * the stream cursor every pillar holds reaches streams.ts, and the ACL rules follow what a pillar's
 * modules reach (scripts/gen-acl.ts).
 */

/** `XRANGE key start end [COUNT n]`: entries in id order, both bounds inclusive unless `(`. */
export function xrange(input: RangeInput): Read<StreamEntryReply[]> {
  const args = [textArg('key', input.key), bound('start', input.start ?? '-'), bound('end', input.end ?? '+')];
  if (input.count !== undefined) args.push('COUNT', positive('count', input.count));
  return read('XRANGE', args, (reply) => parseStreamEntries(reply, 'XRANGE'));
}
