import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import { textArg } from '../args.js';
import { read, type Read } from '../read.js';

/** Which wake list a worker blocks on, and for how long. */
export interface WakeInput {
  /** The queue's wake list, `queueKeys(q).wake`. */
  readonly key: string;
  /** Wait up to this long for a push; 0 waits until a push or the socket's close. */
  readonly timeoutMs: number;
}

/**
 * `BLPOP emq:{q}:wake <seconds>`: pops the wake list's head (a wake token, queue.md §3.1), waiting up
 * to `timeoutMs` for one; `null` on a timeout. It holds the socket while it waits, so send it on a
 * dedicated connection (`connection.duplicate()`); `close({ immediate: true })` interrupts it with
 * ConnectionClosedError.
 *
 * @throws InvalidArgumentError for an empty key or a timeout that is not a non-negative integer.
 */
export function wake(input: WakeInput): Read<string | null> {
  if (!Number.isSafeInteger(input.timeoutMs) || input.timeoutMs < 0) {
    throw new InvalidArgumentError('timeoutMs', 'must be a non-negative integer (0 waits until a push or close)');
  }
  const key = textArg('key', input.key);
  return read('BLPOP', [key, (input.timeoutMs / 1000).toFixed(3)], (reply) => {
    if (reply === null) return null;
    // BLPOP answers [key, value]; anything else is not a pop.
    const value: unknown = Array.isArray(reply) && reply.length === 2 ? reply[1] : undefined;
    if (typeof value === 'string') return value;
    if (Buffer.isBuffer(value)) return value.toString();
    throw new MalformedReplyError('BLPOP', reply, 'not [key, value]');
  });
}
