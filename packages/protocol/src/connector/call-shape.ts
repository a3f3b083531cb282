import { CrossSlotError } from '../errors/connection.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { hashtag, slot } from '../keys/index.js';
import type { Script } from '../scripts/script.js';

/** A value a script call may carry. */
export type Arg = string | Buffer | number;

/**
 * Checks a call against its script's header before anything is sent: the declared key count, the
 * argument count, and that every key hashes to one cluster slot (protocol.md §3.5).
 */
export function checkCall(script: Script, keys: readonly string[], args: readonly Arg[]): void {
  const h = script.header;
  if (keys.length < h.keys.length || (h.restKeys === undefined && keys.length !== h.keys.length)) {
    throw new InvalidArgumentError('keys', `script ${script.name} declares ${h.keys.length}${h.restKeys ? '+' : ''} keys, got ${keys.length}`);
  }
  if (args.length < h.args.length || (h.restArgs === undefined && args.length !== h.args.length)) {
    throw new InvalidArgumentError('args', `script ${script.name} takes ${h.args.length}${h.restArgs ? '+' : ''} arguments, got ${args.length}`);
  }
  const first = keys[0];
  if (first === undefined) return;
  const tag = hashtag(first);
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    if (hashtag(key) !== tag && slot(key) !== slot(first)) throw new CrossSlotError(script.name, keys);
  }
}
