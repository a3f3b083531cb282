import type { JobId } from '../ids/branded.js';
import { assertDedupId } from '../keys/names.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { admitted, idArg, jobOptionArgs, whole, type JobOptionFields } from './values.js';
import { decimal, decimals, text, tuple } from '../reply-shapes.js';

/** The verdict of an admission: a new row, or a row that already existed (nothing written). */
export type Admission = 'enqueued' | 'duplicate';

/** What every admission names: where, which id, what bytes. */
export interface AdmitInput {
  readonly queue: string;
  readonly id: JobId | string;
  /** The encoded payload; never interpreted. */
  readonly payload: string;
  /** Per-job options written into the row with it [TS]. */
  readonly options?: JobOptionFields;
}

/** Input of {@link enqueue}. */
export interface EnqueueInput extends AdmitInput {
  /** Also push one token on the wake list, so a parked consumer wakes [TS]. */
  readonly wake?: boolean;
}

/** `enqueue`: admits a fresh job to the flat pending set; idempotent by id (queue.md §2.1). */
export function enqueue(input: EnqueueInput): Transition<Admission> {
  const id = idArg(input.id);
  const call = bind(scripts().enqueue, { scope: { q: input.queue, id }, args: { id, payload: input.payload }, restArgs: jobOptionArgs(input.options), optional: input.wake === true });
  return transition(call, admitted);
}

/** The verdict of one item of {@link enqueueMany}: admitted, already there, or refused (nothing written). */
export type ManyAdmission = Admission | 'kind' | 'malformed';

const MANY_CODES: Readonly<Record<number, ManyAdmission>> = { 1: 'enqueued', 0: 'duplicate', [-1]: 'kind', [-2]: 'malformed' };

/** Input of {@link enqueueMany}. */
export interface EnqueueManyInput {
  readonly queue: string;
  /** The jobs to admit; every id is checked here, its namespace by the script. */
  readonly items: readonly { readonly id: JobId | string; readonly payload: string }[];
  /** Also push one wake token when any job was admitted, so a parked consumer wakes. */
  readonly wake?: boolean;
}

/**
 * `enqueue_many` [TS]: admits many jobs to the flat pending set in one script, one verdict per item
 * in input order (queue.md §2.3). `kind` is the EMQKIND refusal of one item; its neighbours still
 * go in.
 */
export function enqueueMany(input: EnqueueManyInput): Transition<ManyAdmission[]> {
  const items: string[] = [];
  for (const item of input.items) items.push(idArg(item.id), item.payload);
  const call = bind(scripts().enqueue_many, { scope: { q: input.queue }, restArgs: items, optional: input.wake === true });
  return checkedTransition(call, manyCodes);
}

/** One item of {@link enqueueManyWith}: a job with its per-job options and, optionally, a time. */
export interface ManyItemWith {
  readonly id: JobId | string;
  readonly payload: string;
  /** Row options, written as enqueue writes them. */
  readonly options?: JobOptionFields;
  /** Run no earlier than this absolute time (epoch ms). */
  readonly at?: number;
  /** Run no earlier than this many ms from the server's now; 0 or absent with no `at` admits to pending. */
  readonly inMs?: number;
}

/** Input of {@link enqueueManyWith}. */
export interface EnqueueManyWithInput {
  readonly queue: string;
  readonly items: readonly ManyItemWith[];
  /** Push a wake token (pending) and a due hint (scheduled), as enqueue and schedule do. */
  readonly wake?: boolean;
}

/**
 * `enqueue_many_with` [TS]: admits many jobs carrying per-job options (and a time, for scheduled
 * ones) in one script, one verdict per item in input order, as {@link enqueueMany} answers.
 */
export function enqueueManyWith(input: EnqueueManyWithInput): Transition<ManyAdmission[]> {
  const items: string[] = [];
  for (const item of input.items) {
    const fields = jobOptionArgs(item.options);
    const [mode, ms] =
      item.at !== undefined ? ['at', String(whole('runAt', item.at, 0))] : item.inMs !== undefined && item.inMs !== 0 ? ['in', String(whole('delayMs', item.inMs, 0))] : ['', '0'];
    items.push(idArg(item.id), item.payload, mode, ms, String(fields.length), ...fields);
  }
  const call = bind(scripts().enqueue_many_with, { scope: { q: input.queue }, restArgs: items, optional: input.wake === true });
  return checkedTransition(call, manyCodes);
}

/** Input of {@link enqueueDedup}. */
export interface EnqueueDedupInput extends EnqueueInput {
  /** The idempotency key. */
  readonly dedupId: string;
  /** How long the key holds, in ms; forever when omitted. */
  readonly ttlMs?: number;
  /**
   * [TS] A business key: the key holds while the job lives and this many ms after it ends (instead
   * of being released at once). Exclusive with `ttlMs`.
   */
  readonly keepMs?: number;
  /** [TS] What an admission refused by the key does to the job it names: see {@link DedupMode}. */
  readonly mode?: DedupMode;
  /**
   * [TS] BullMQ's keepLastIfActive: an admission refused while the parked job is active is kept
   * (the newest replacing an older one) and admitted, with its own delay, when that job ends; the
   * key then holds until its job ends, so no `ttlMs` expiry applies. Not with `keepMs`.
   */
  readonly keepLast?: boolean;
  /**
   * [TS] A business key beside the dedup id (BullMQ's `jobId` next to its deduplication): checked
   * before the dedup id (a job holding it answers the admission), held by the admitted job while it
   * lives and `idKeyKeepMs` after it ends (released at once when the job is removed). Not with `keepMs`.
   */
  readonly idKey?: string;
  /** [TS] How long `idKey` outlives its job, in ms (required with `idKey`). */
  readonly idKeyKeepMs?: number;
}

/**
 * [TS] What a keyed admission refused by its key does to the parked job (BullMQ's deduplication
 * modes): `extend` restarts the key's TTL window; `replace` gives the parked job the new payload
 * while it still waits (pending or scheduled); `debounce` does both and, for a timed admission,
 * moves a scheduled parked job to the new due time. `extend` and `debounce` need a TTL.
 */
export type DedupMode = 'extend' | 'replace' | 'debounce';

const DEDUP_MODES: ReadonlySet<string> = new Set<DedupMode>(['extend', 'replace', 'debounce']);

/** The verdict of a keyed admission; `existingId` names the job the key or the row points at. */
export interface DedupAdmission {
  readonly status: Admission;
  readonly existingId: JobId;
}

/** `enqueue_dedup`: admits a job under an idempotency key (queue.md §2.2). */
export function enqueueDedup(input: EnqueueDedupInput): Transition<DedupAdmission> {
  const id = idArg(input.id);
  assertDedupId(input.dedupId);
  const ttl = input.ttlMs === undefined ? '' : whole('dedupTtlMs', input.ttlMs, 1);
  // A kept admission waits for its parked job's end, so that key must not expire under it.
  const ttlArg = input.keepLast === true ? '' : ttl;
  const call = bind(scripts().enqueue_dedup, {
    scope: { q: input.queue, id, did: input.dedupId },
    args: { id, payload: input.payload, ttl_ms: ttlArg },
    restArgs: keyedArgs(input),
    optional: input.wake === true,
  });
  return checkedTransition(call, dedupAdmission);
}

/** Input of {@link schedule}: exactly one of `at` (epoch ms) and `inMs` (from the server's now). */
export type ScheduleInput = AdmitInput &
  ({ readonly at: number; readonly inMs?: never } | { readonly inMs: number; readonly at?: never }) & {
    /** Also push a due hint on the wake list when the job became the earliest scheduled one [TS]. */
    readonly wake?: boolean;
  };

/** `schedule`: admits a job to run no earlier than a time (queue.md §2.4). */
export function schedule(input: ScheduleInput): Transition<Admission> {
  const id = idArg(input.id);
  const [mode, ms] = input.at !== undefined ? ['at', whole('runAt', input.at, 0)] : ['in', whole('delayMs', input.inMs, 0)];
  const call = bind(scripts().schedule, { scope: { q: input.queue, id }, args: { id, payload: input.payload, mode, ms }, restArgs: jobOptionArgs(input.options), optional: input.wake === true });
  return transition(call, admitted);
}

/** Input of {@link scheduleDedup}: a timed admission under an idempotency key. */
export type ScheduleDedupInput = ScheduleInput & {
  /** The idempotency key. */
  readonly dedupId: string;
  /** How long the key holds, in ms; forever when omitted. */
  readonly ttlMs?: number;
  /** [TS] A business key's window after the job ends, as {@link EnqueueDedupInput.keepMs}. */
  readonly keepMs?: number;
  /** [TS] As {@link EnqueueDedupInput.mode}. */
  readonly mode?: DedupMode;
  /** [TS] As {@link EnqueueDedupInput.keepLast}. */
  readonly keepLast?: boolean;
  /** [TS] As {@link EnqueueDedupInput.idKey}. */
  readonly idKey?: string;
  /** [TS] As {@link EnqueueDedupInput.idKeyKeepMs}. */
  readonly idKeyKeepMs?: number;
};

/**
 * [TS] The row fields naming the idempotency key, after the option pairs: `dedup` (so the ending
 * scripts can release it) and, for a business key, `dedup_keep` (ms it outlives the job).
 */
function keyedArgs(input: { readonly options?: JobOptionFields | undefined; readonly dedupId: string; readonly ttlMs?: number | undefined; readonly keepMs?: number | undefined; readonly mode?: DedupMode | undefined; readonly keepLast?: boolean | undefined; readonly idKey?: string | undefined; readonly idKeyKeepMs?: number | undefined }): string[] {
  const out = [...jobOptionArgs(input.options), 'dedup', input.dedupId];
  if (input.idKey !== undefined || input.idKeyKeepMs !== undefined) {
    if (input.idKey === undefined || input.idKeyKeepMs === undefined) throw new InvalidArgumentError('idKey', 'idKey and idKeyKeepMs go together');
    if (input.keepMs !== undefined) throw new InvalidArgumentError('idKey', 'applies beside a dedupId, not a business key');
    assertDedupId(input.idKey);
    out.push('idkey', input.idKey, 'idkey_keep', String(whole('idKeyKeepMs', input.idKeyKeepMs, 1)));
  }
  // Checked as unknown: JavaScript callers are not held to the type.
  const keepLast: unknown = input.keepLast;
  if (keepLast !== undefined && typeof keepLast !== 'boolean') throw new InvalidArgumentError('keepLast', 'must be a boolean');
  if (keepLast === true) {
    if (input.keepMs !== undefined) throw new InvalidArgumentError('keepLast', 'applies to a dedupId, not a business key');
    out.push('dedup_keep_last', '1');
  }
  if (input.keepMs !== undefined) {
    if (input.ttlMs !== undefined) throw new InvalidArgumentError('keepMs', 'cannot be combined with a dedup TTL');
    if (input.mode !== undefined) throw new InvalidArgumentError('dedupMode', 'applies to a dedupId, not a business key');
    out.push('dedup_keep', String(whole('keepMs', input.keepMs, 1)));
  }
  // Checked as unknown: JavaScript callers are not held to the type.
  const mode: unknown = input.mode;
  if (mode !== undefined) {
    if (typeof mode !== 'string' || !DEDUP_MODES.has(mode)) throw new InvalidArgumentError('dedupMode', "must be 'extend', 'replace' or 'debounce'");
    if (mode !== 'replace' && input.ttlMs === undefined) throw new InvalidArgumentError('dedupMode', `'${mode}' restarts the key's window, so it needs dedupTtlMs`);
    out.push('dedup_mode', mode);
    if (input.ttlMs !== undefined) out.push('dedup_ttl', String(input.ttlMs));
  }
  return out;
}

/** `schedule_dedup` [TS]: a timed admission under an idempotency key, in one step. */
export function scheduleDedup(input: ScheduleDedupInput): Transition<DedupAdmission> {
  const id = idArg(input.id);
  assertDedupId(input.dedupId);
  const [mode, ms] = input.at !== undefined ? ['at', whole('runAt', input.at, 0)] : ['in', whole('delayMs', input.inMs, 0)];
  const ttl = input.ttlMs === undefined ? '' : whole('dedupTtlMs', input.ttlMs, 1);
  // A kept admission waits for its parked job's end, so that key must not expire under it.
  const ttlArg = input.keepLast === true ? '' : ttl;
  const call = bind(scripts().schedule_dedup, {
    scope: { q: input.queue, id, did: input.dedupId },
    args: { id, payload: input.payload, mode, ms, ttl_ms: ttlArg },
    restArgs: keyedArgs(input),
    optional: input.wake === true,
  });
  return checkedTransition(call, dedupAdmission);
}

/** Input of {@link laneEnqueue}. */
export interface LaneEnqueueInput extends AdmitInput {
  /** The lane's group id. */
  readonly group: string;
}

/** `genqueue`: admits a job into a lane (queue.md §5.1). */
export function laneEnqueue(input: LaneEnqueueInput): Transition<Admission> {
  const id = idArg(input.id);
  const g = idArg(input.group);
  const call = bind(scripts().genqueue, { scope: { q: input.queue, id, g }, args: { id, payload: input.payload, g }, restArgs: jobOptionArgs(input.options) });
  return transition(call, admitted);
}

/** Reads one verdict code per item. */
function manyCodes(command: string, reply: unknown): ManyAdmission[] {
  return decimals(command, reply, reply, 'the reply').map((code) => MANY_CODES[code] ?? 'malformed');
}

/** Reads `{code, id}`: 1 admitted, else the id already holding the idempotency key. */
function dedupAdmission(command: string, reply: unknown): DedupAdmission {
  const [code, existing] = tuple(command, reply, reply, 2, 'the reply');
  return { status: decimal(command, reply, code, 'the code') === 1 ? 'enqueued' : 'duplicate', existingId: text(command, reply, existing, 'the existing id') as JobId };
}
