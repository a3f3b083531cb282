import { InvalidArgumentError } from '../../errors/validation.js';
import { MalformedReplyError } from '../../errors/wire.js';
import { cacheEntryKey } from '../../keys/cache-keys.js';
import { write, type Write } from '../write.js';

/** What an entry-lease attempt found (see {@link cacheEntryLease}). */
export type EntryLeaseReply =
  /** The entry was missing: it is now the caller's lease frame. */
  | { readonly status: 'leased' }
  /** The entry holds a value frame (fresh or in grace), returned as the reply carried it; nothing changed. */
  | { readonly status: 'found'; readonly frame: Buffer | string }
  /**
   * Another caller's lease frame: its end (Unix ms) and whether a caller already marked it waited
   * (so its fill announces itself on the log); nothing changed.
   */
  | { readonly status: 'busy'; readonly until: number; readonly waited: boolean };

const DEADLINE_DIGITS = 13;

/**
 * `SET ecc:{<ns>}:k:<key> ~L0<deadline><token> NX PXAT <deadline> GET` [TS]: the entry lease taken in
 * the one plain command that reads the entry (the lease frame is `cache_read`'s: `~L` ++ waited flag
 * ++ deadline(13 digits) ++ token). A missing entry becomes the caller's lease until `deadline`; an
 * existing frame comes back as it is: as bytes with `buffers` (send it alone), as UTF-8 text without
 * (so it fits a pipeline with other misses; for text codecs only). A busy lease not yet marked
 * waited is marked by `cache_read` (a script, so the mark cannot land on a value written in between).
 *
 * @throws InvalidNameError for a bad namespace; InvalidArgumentError for a bad key, an empty token
 *   or a deadline that is not a positive integer of at most 13 digits.
 */
export function cacheEntryLease(input: {
  readonly namespace: string;
  readonly key: string;
  readonly token: string;
  readonly deadline: number;
  /** Bulk replies as `Buffer`s (a binary codec's frame); default text. */
  readonly buffers?: boolean;
}): Write<EntryLeaseReply> {
  if (typeof input.token !== 'string' || input.token === '') throw new InvalidArgumentError('token', 'must be a non-empty string');
  if (!Number.isSafeInteger(input.deadline) || input.deadline < 1 || String(input.deadline).length > DEADLINE_DIGITS) {
    throw new InvalidArgumentError('deadline', `must be a positive Unix ms of at most ${String(DEADLINE_DIGITS)} digits, got ${String(input.deadline)}`);
  }
  const deadline = String(input.deadline).padStart(DEADLINE_DIGITS, '0');
  return write(
    'SET',
    [cacheEntryKey(input.namespace, input.key), `~L0${deadline}${input.token}`, 'NX', 'PXAT', deadline, 'GET'],
    (reply): EntryLeaseReply => {
      if (reply === null) return { status: 'leased' };
      if (typeof reply === 'string') {
        // `~L`: a lease frame, never a value frame (whose version starts with a letter).
        if (!reply.startsWith('~L')) return { status: 'found', frame: reply };
        return { status: 'busy', until: Number(reply.slice(3, 3 + DEADLINE_DIGITS)) || 0, waited: reply[2] !== '0' };
      }
      if (!Buffer.isBuffer(reply)) throw new MalformedReplyError('SET', reply, 'expected a bulk string or nil');
      if (reply[0] !== 0x7e || reply[1] !== 0x4c) return { status: 'found', frame: reply };
      return { status: 'busy', until: Number(reply.toString('latin1', 3, 3 + DEADLINE_DIGITS)) || 0, waited: reply[2] !== 0x30 };
    },
    { buffers: input.buffers === true },
  );
}
