import { queueKeys } from '../keys/index.js';
import { parseMeta, type QueueMeta } from '../records.js';
import { read, type Read } from './read.js';
import { fieldsOf } from '../reply-shapes.js';

/** `HGETALL emq:{q}:meta`: the queue's pause flag, active ceiling and rate cap (protocol.md §5.2). */
export function queueMeta(input: { readonly queue: string }): Read<QueueMeta> {
  return read('HGETALL', [queueKeys(input.queue).meta], (reply) => parseMeta(fieldsOf('HGETALL', reply)));
}
