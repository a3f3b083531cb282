import type { QueueKeys } from '../../keys/queue-keys.js';
import { parseMeta, type QueueMeta } from '../../records.js';
import { fieldsOf, flag } from '../../reply-shapes.js';
import { read, type Read } from '../read.js';

/** `HGETALL meta`: the queue's pause flag, active ceiling and rate cap (protocol.md §5.2). */
export function meta(input: { readonly keys: QueueKeys }): Read<QueueMeta> {
  return read('HGETALL', [input.keys.meta], (reply) => parseMeta(fieldsOf('HGETALL', reply)));
}

/** `HEXISTS meta paused`: whether the queue-wide pause stands (the field's presence is the flag). */
export function paused(input: { readonly keys: QueueKeys }): Read<boolean> {
  return read('HEXISTS', [input.keys.meta, 'paused'], (reply) => flag('HEXISTS', reply));
}
