import type { QueueKeys } from '../../keys/queue-keys.js';
import { read, type Read } from '../read.js';
import { flag } from '../../reply-shapes.js';

/** `HEXISTS meta paused`: whether the queue-wide pause stands (the field's presence is the flag). */
export function paused(input: { readonly keys: QueueKeys }): Read<boolean> {
  return read('HEXISTS', [input.keys.meta, 'paused'], (reply) => flag('HEXISTS', reply));
}
