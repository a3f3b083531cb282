import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import { read, type Read } from '../read.js';
import { flag, integer, list, text } from '../../reply-shapes.js';

/** `TIME`: the server's clock in ms. Finish times are stamped by it, so ages are measured on it too. */
export function time(): Read<number> {
  return read('TIME', [], (reply) => {
    const parts = list('TIME', reply);
    if (parts.length !== 2) throw new MalformedReplyError('TIME', reply, 'not [seconds, microseconds]');
    const s = Number(text('TIME', reply, parts[0]));
    const us = Number(text('TIME', reply, parts[1]));
    if (!Number.isSafeInteger(s) || !Number.isSafeInteger(us)) throw new MalformedReplyError('TIME', reply, 'not [seconds, microseconds]');
    return s * 1000 + Math.floor(us / 1000);
  });
}

/**
 * `EXISTS pending`: one cheap read on the queue's own slot, sent to learn that calls get through (an
 * outage's end) or to route a keyless command behind it to the queue's master.
 */
export function probe(input: { readonly keys: QueueKeys }): Read<boolean> {
  return read('EXISTS', [input.keys.pending], (reply) => flag('EXISTS', reply));
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(name, `must be a positive integer, got ${String(value)}`);
  return value;
}

/**
 * `WAIT replicas timeoutMs`: how many replicas confirmed every write this socket sent so far. A zero
 * timeout would block for ever, so it is refused.
 */
export function replicated(input: { readonly replicas: number; readonly timeoutMs: number }): Read<number> {
  return read('WAIT', [positive('replicas', input.replicas), positive('timeoutMs', input.timeoutMs)], (reply) => integer('WAIT', reply));
}
