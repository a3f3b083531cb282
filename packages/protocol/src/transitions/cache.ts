import { InvalidArgumentError } from '../errors/validation.js';
import type { BrandedId } from '../ids/branded.js';
import { cacheEntryKey, cacheTagKey } from '../keys/cache-keys.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { idArg, int, whole } from './values.js';
import { tuple } from '../reply-shapes.js';

/**
 * `coherence_drop`: deletes a row's L2 frame only when `version` is newer than the frame's, or the
 * frame is corrupt (cache.md §7.4); answers whether it was dropped.
 */
export function coherenceDrop(input: { readonly table: string; readonly id: BrandedId | string; readonly version: BrandedId | string }): Transition<boolean> {
  const id = idArg(input.id);
  const call = bind(scripts().coherence_drop, { scope: { t: input.table, id }, args: { version: idArg(input.version) } });
  return transition(call, (reply) => int(reply) === 1);
}

/** What `cache_read` found: a fresh frame, the caller's lease, another caller's lease, or nothing. */
export interface CacheReadReply {
  /**
   * `fresh`: a frame before its soft expiry; `leased`: the lease is now the caller's; `busy`: another
   * caller holds it; `none`: no fresh frame, no lease asked; `found` [TS] (entry lease): a frame the
   * caller judges by its soft expiry.
   */
  readonly status: 'fresh' | 'leased' | 'busy' | 'none' | 'found';
  /** The frame as the script answered it (hex when asked), stale or fresh; `null` when absent. */
  readonly frame: string | null;
  /** For `busy`: the lease's remaining ms. */
  readonly pttl: number;
}

const READ_STATUS = ['none', 'fresh', 'leased', 'busy', 'found'] as const;

/**
 * `cache_read` [TS]: reads a keyed entry and, when it is missing or past its soft expiry and a
 * `token` is given, takes the entry's load lease in the same step. With a `deadline` (the entry
 * lease) the read is one `SET NX GET` on the entry: a missing entry becomes the caller's lease frame
 * until `deadline`, and an existing frame is answered as `found`, whatever its soft expiry.
 */
export function cacheRead(input: {
  readonly namespace: string;
  readonly key: string;
  /** The lease token to take; omit to read without leasing. */
  readonly token?: string;
  readonly leaseMs: number;
  /** Answer the frame hex-encoded, for binary values (script replies arrive as UTF-8 text). */
  readonly hex?: boolean;
  /**
   * [TS] Take the entry lease instead of the lease key: the lease frame lives in the entry until
   * this Unix ms (the lease's end; needs a `token`).
   */
  readonly deadline?: number;
}): Transition<CacheReadReply> {
  const deadline = input.deadline === undefined ? '' : String(whole('deadline', input.deadline, 1)).padStart(13, '0');
  if (deadline !== '' && (input.token ?? '') === '') throw new InvalidArgumentError('token', 'an entry lease needs a token');
  const call = bind(scripts().cache_read, {
    scope: { t: input.namespace, key: input.key },
    args: { token: input.token ?? '', leaseMs: whole('leaseMs', input.leaseMs, 1), hex: input.hex === true ? '1' : '0', deadline },
  });
  return checkedTransition(call, (command, reply) => {
    const [status, frame, n] = tuple(command, reply, reply, 1, 'the reply');
    const read = READ_STATUS[Number(status)] ?? 'none';
    // An entry lease answers its end (the lease frame carries it), not the server's PTTL.
    const pttl = deadline !== '' && read === 'busy' ? Math.max(0, Number(n ?? 0) - Date.now()) : Number(n ?? 0);
    return { status: read, frame: typeof frame === 'string' ? frame : Buffer.isBuffer(frame) ? frame.toString('latin1') : null, pttl };
  });
}

/**
 * `cache_write` [TS]: writes a keyed entry's frame, adds it to its tags' sets, and appends `s` to
 * the namespace's coherence log, in one step. Newer wins: a stored frame at least as new is kept
 * (a plain write swaps the frame in with one `SET GET` and puts a newer one back).
 * With a `token` (a fill), it writes only while that lease is held, and gives the lease back.
 *
 * @returns whether the frame was written.
 */
export function cacheWrite(input: {
  readonly namespace: string;
  readonly key: string;
  /** `version(14) ++ soft expiry(13 digits) ++ value`. */
  readonly frame: Buffer | string;
  /** L2 lifetime in ms; 0 keeps the entry without expiry. */
  readonly px: number;
  readonly token?: string;
  /** The coherence log's approximate bound. */
  readonly maxlen: number;
  readonly tags?: readonly string[];
  /**
   * [TS] For a plain write (no `token`), the grace a newer frame it displaced gets back: the write is
   * one `SET GET`, and a newer frame is put back until its soft expiry plus this (default 0).
   */
  readonly graceMs?: number;
  /**
   * [TS] The fill holds the entry lease (see {@link cacheRead}'s `deadline`), so the write is one
   * `SET XX GET`; `graceMs` is what a refused fill gives back to a value frame it displaced.
   */
  readonly entryLease?: { readonly graceMs: number };
}): Transition<boolean> {
  if (input.entryLease !== undefined && (input.token ?? '') === '') throw new InvalidArgumentError('token', 'an entry lease needs a token');
  const graceMs = whole('graceMs', input.entryLease?.graceMs ?? input.graceMs ?? 0, 0);
  const call = bind(scripts().cache_write, {
    scope: { t: input.namespace, key: input.key },
    args: { frame: input.frame, px: whole('px', input.px, 0), token: input.token ?? '', maxlen: whole('maxlen', input.maxlen, 1), name: input.key, graceMs, lease: input.entryLease === undefined ? '0' : '1' },
    restKeys: (input.tags ?? []).map((tag) => cacheTagKey(input.namespace, tag)),
  });
  return transition(call, (reply) => int(reply) === 1);
}

/**
 * `cache_release` [TS]: gives back a load lease whose loader failed and appends `r` to the log, so
 * callers waiting in other processes retry at once. Answers whether the lease was the caller's.
 */
export function cacheRelease(input: {
  readonly namespace: string;
  readonly key: string;
  readonly token: string;
  readonly maxlen: number;
  /** [TS] The lease is the entry's lease frame (see {@link cacheRead}'s `deadline`). */
  readonly entryLease?: boolean;
}): Transition<boolean> {
  if (typeof input.token !== 'string' || input.token === '') throw new InvalidArgumentError('token', 'must be a non-empty string');
  const call = bind(scripts().cache_release, {
    scope: { t: input.namespace, key: input.key },
    args: { token: input.token, maxlen: whole('maxlen', input.maxlen, 1), name: input.key, entryLease: input.entryLease === true ? '1' : '0' },
  });
  return transition(call, (reply) => int(reply) === 1);
}

/**
 * `cache_delete` [TS]: deletes keyed entries and appends one `d` naming them all to the log, in
 * one step; `announce: false` deletes quietly (the batches that follow a clear). Answers how many
 * existed.
 */
export function cacheDelete(input: {
  readonly namespace: string;
  readonly keys: readonly string[];
  readonly version: BrandedId | string;
  readonly maxlen: number;
  readonly announce?: boolean;
}): Transition<number> {
  if (input.keys.length === 0) throw new InvalidArgumentError('keys', 'must name at least one entry');
  const call = bind(scripts().cache_delete, {
    scope: { t: input.namespace },
    args: { version: idArg(input.version), maxlen: whole('maxlen', input.maxlen, 1), announce: input.announce === false ? '0' : '1' },
    restKeys: input.keys.map((key) => cacheEntryKey(input.namespace, key)),
    restArgs: input.keys,
  });
  return transition(call, int);
}

/**
 * `cache_tag_delete` [TS]: deletes the entries of `keys` that are still in `tag`'s set (read by the
 * caller just before) and appends one `d` naming them to the log. Answers how many went.
 */
export function cacheTagDelete(input: {
  readonly namespace: string;
  readonly tag: string;
  readonly keys: readonly string[];
  readonly version: BrandedId | string;
  readonly maxlen: number;
}): Transition<number> {
  const call = bind(scripts().cache_tag_delete, {
    scope: { t: input.namespace, tag: input.tag },
    args: { version: idArg(input.version), maxlen: whole('maxlen', input.maxlen, 1) },
    restKeys: input.keys.map((key) => cacheEntryKey(input.namespace, key)),
    restArgs: input.keys,
  });
  return transition(call, int);
}

/** `cache_clear` [TS]: appends `c` to the log, so every process drops entries older than `version`. */
export function cacheClear(input: { readonly namespace: string; readonly version: BrandedId | string; readonly maxlen: number }): Transition<string> {
  const call = bind(scripts().cache_clear, {
    scope: { t: input.namespace },
    args: { version: idArg(input.version), maxlen: whole('maxlen', input.maxlen, 1) },
  });
  return transition(call, (reply) => String(reply));
}

/**
 * `cache_pull` [TS]: reads a keyed entry and deletes it in one step, and appends a `d` naming it to
 * the log (whether or not it existed), so other processes drop their L1 copies. Answers the frame
 * that was deleted as the script answered it (hex when asked), or `null`.
 */
export function cachePull(input: {
  readonly namespace: string;
  readonly key: string;
  readonly version: BrandedId | string;
  readonly maxlen: number;
  /** Answer the frame hex-encoded, for binary values. */
  readonly hex?: boolean;
}): Transition<string | null> {
  const call = bind(scripts().cache_pull, {
    scope: { t: input.namespace, key: input.key },
    args: { version: idArg(input.version), maxlen: whole('maxlen', input.maxlen, 1), name: input.key, hex: input.hex === true ? '1' : '0' },
  });
  return transition(call, (reply) => (typeof reply === 'string' ? reply : Buffer.isBuffer(reply) ? reply.toString('latin1') : null));
}

/** What `cache_expire` did to the entry. */
export type CacheExpireOutcome = 'absent' | 'stale' | 'deleted';

const EXPIRE_OUTCOMES = ['absent', 'stale', 'deleted'] as const;

/**
 * `cache_expire` [TS]: marks a keyed entry stale at the server's now and keeps it for `grace` ms (never
 * longer than it had left), appending `s` to the log so every process drops its L1 copy; with no
 * grace the entry is deleted and `d` is appended instead.
 */
export function cacheExpire(input: {
  readonly namespace: string;
  readonly key: string;
  readonly version: BrandedId | string;
  /** How long the stale entry is kept, ms (the namespace's grace); 0 deletes it. */
  readonly grace: number;
  readonly maxlen: number;
}): Transition<CacheExpireOutcome> {
  const call = bind(scripts().cache_expire, {
    scope: { t: input.namespace, key: input.key },
    args: { version: idArg(input.version), grace: whole('grace', input.grace, 0), maxlen: whole('maxlen', input.maxlen, 1), name: input.key },
  });
  return transition(call, (reply) => EXPIRE_OUTCOMES[int(reply)] ?? 'absent');
}
