import { assertBrandedId, assertDedupId, isBrandedId, execute, executeAll, InvalidArgumentError, KindError, MalformedIdError, mintId, transitions as t, type BrandedId, type JobId, type JobOptionFields, type TraceContext, type Transition } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { checkEnqueueOptions, checkLaneOptions, checkManyItemOptions } from '../core/option-checks.js';
import { laneGroupId } from '../core/lane-names.js';
import { encodeBackoff, type Backoff } from '../core/backoff.js';

/**
 * Per-job options kept in the job's row [TS] and read back by the claim itself, so a worker pays
 * no extra round trip for them. Each one overrides the worker's setting of the same purpose.
 */
export interface JobOptions {
  /** A label the handler (`job.name`), `getJob` and listings see; 1 to 256 characters. */
  readonly name?: string;
  /** Attempts before the job is dead-lettered, in place of the worker's `maxAttempts`. */
  readonly attempts?: number;
  /** The retry curve, in place of the worker's `backoff`. */
  readonly backoff?: Backoff;
  /**
   * How long one attempt may run, in ms: past it the handler's `signal` aborts and the attempt
   * fails with `JobTimeoutError` (retried like any failure). No limit when omitted.
   */
  readonly timeoutMs?: number;
  /**
   * [TS] A deadline for the job to start, in ms from the server's now at admission: a job still
   * waiting (pending, scheduled or retrying) past it is never handed to a handler; the claim that
   * meets it settles it as `expired` (state `expired`, the `expired` event, `counts('expired')`,
   * kept by the failed retention). Exclusive with `expireAt`.
   */
  readonly expireInMs?: number;
  /** [TS] The same deadline as an absolute time (epoch ms, or a Date), read against the server's clock. */
  readonly expireAt?: number | Date;
  /**
   * [TS] The job's created time as the app sees it (epoch ms, or a Date), for imports: kept in the
   * row and read back as `getJob(id).timestamp`. Informational: claim order does not read it.
   */
  readonly timestamp?: number | Date;
}

/**
 * The row fields of `options` (and of the producer's trace context, when a tracing subscriber gave
 * one), checked; `undefined` when there are none, so plain admissions send nothing more.
 */
export function jobOptionFields(options: JobOptions & { readonly priority?: number; readonly lifo?: boolean }, trace?: TraceContext): JobOptionFields | undefined {
  const { name, attempts, backoff, timeoutMs, priority, expireInMs, expireAt, lifo } = options;
  const deadline = expireAt instanceof Date ? expireAt.getTime() : expireAt;
  const timestamp = options.timestamp instanceof Date ? options.timestamp.getTime() : options.timestamp;
  if (name === undefined && attempts === undefined && backoff === undefined && timeoutMs === undefined && (priority === undefined || priority === 0) && trace === undefined && expireInMs === undefined && deadline === undefined && lifo === undefined && timestamp === undefined) return undefined;
  return {
    ...(lifo === undefined ? {} : { lifo }),
    ...(timestamp === undefined ? {} : { timestamp }),
    ...(expireInMs === undefined ? {} : { expireInMs }),
    ...(deadline === undefined ? {} : { expireAt: deadline }),
    ...(trace === undefined ? {} : { trace }),
    ...(priority === undefined || priority === 0 ? {} : { priority }),
    ...(name === undefined ? {} : { name }),
    ...(attempts === undefined ? {} : { maxAttempts: attempts }),
    ...(backoff === undefined ? {} : { backoff: encodeBackoff(backoff) }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

/** Options for one admission. */
export interface EnqueueOptions extends JobOptions {
  /**
   * Claim order [TS]: a higher priority is claimed first, FIFO (mint order) within one priority;
   * default 0, negative values wait behind it; integers within ±2,097,152. It is kept across
   * retries, delays and recovery. Lanes ignore it: a lane job is served by the rotation.
   */
  readonly priority?: number;
  /**
   * [TS] LIFO admission (BullMQ's `lifo`): claimed before every job already waiting at its
   * priority, the newest LIFO job first. For an immediate admission only: with `runAt` or
   * `delayMs` it is refused. A retried job goes back to its priority's FIFO order.
   */
  readonly lifo?: boolean;
  /** The job's id; minted here when omitted. Enqueue is idempotent by id, so a retry is safe. */
  readonly id?: JobId | string;
  /** Run no earlier than this absolute time (epoch ms, or a Date). */
  readonly runAt?: number | Date;
  /** Run no earlier than this many ms from the server's now. */
  readonly delayMs?: number;
  /** An idempotency key: later admissions under it report the first job's id. Combines with `runAt`/`delayMs`. */
  readonly dedupId?: string;
  /** How long the idempotency key holds, in ms; forever when omitted. */
  readonly dedupTtlMs?: number;
  /**
   * [TS] What an admission refused by `dedupId` does to the job the key names (the job kept, which
   * the `deduplicated` event names as `job`): `'extend'` restarts the key's `dedupTtlMs` window;
   * `'replace'` gives the kept job this payload while it still waits and, with `delayMs`/`runAt`,
   * moves a still-scheduled kept job to the new time (BullMQ's replace, which swaps the delayed job
   * for the new one); `'debounce'` does both that and `'extend'` (BullMQ's
   * `deduplication: { extend: true, replace: true }`). Without it a refused admission
   * changes nothing. `'extend'` and `'debounce'` need `dedupTtlMs`.
   */
  readonly dedupMode?: t.DedupMode;
  /**
   * [TS] BullMQ's `deduplication.keepLastIfActive`: an admission refused by `dedupId` while the job
   * the key names is active is kept (a newer one replaces it) and admitted, with its own
   * `delayMs`/`runAt`, in the same step that ends that job, so two jobs under one key never run
   * at once. The key then holds until its job ends: `dedupTtlMs` sets no expiry on it.
   */
  readonly dedupKeepLast?: boolean;
  /**
   * [TS] A business key (`'order-42'`): the admission is idempotent on it while the job lives and
   * for `keyRetentionMs` after it ends, delayed jobs included; `getJobByKey` finds the job. The
   * same mechanism as `dedupId` (one namespace) with a different release rule: a dedup id without a
   * TTL is released when its job ends, a business key is kept for its window. 1 to 255 characters of
   * `A-Z a-z 0-9 . _ -` (anything else, `:` `{` `}` and spaces included, is refused with
   * InvalidNameError). [TS] Beside a `dedupId` it is checked first (a job holding it answers the
   * admission), then the dedup id; the admitted job holds both.
   */
  readonly key?: string;
  /** [TS] How long a business key outlives its job, in ms; default one hour (`DEFAULT_KEY_RETENTION_MS`). */
  readonly keyRetentionMs?: number;
}

/** How long a business key outlives its job by default: one hour. */
export const DEFAULT_KEY_RETENTION_MS = 3_600_000;

/** An admission's idempotency key with its release rule, and [TS] a business key beside a dedup id. */
interface Keyed {
  readonly dedupId: string;
  readonly ttlMs?: number;
  readonly keepMs?: number;
  readonly mode?: t.DedupMode;
  readonly keepLast?: boolean;
  readonly idKey?: string;
  readonly idKeyKeepMs?: number;
}

/** The idempotency key of an admission and its release rule, or `undefined` for a plain one. */
function keyed(options: EnqueueOptions): Keyed | undefined {
  if (options.dedupMode !== undefined && options.dedupId === undefined) throw new InvalidArgumentError('dedupMode', 'needs a dedupId');
  if (options.dedupKeepLast !== undefined && options.dedupId === undefined) throw new InvalidArgumentError('dedupKeepLast', 'needs a dedupId');
  if (options.key !== undefined && options.dedupId !== undefined) {
    assertDedupId(options.key);
    const { key, keyRetentionMs, ...dedup } = options;
    const inner = keyed(dedup) as Keyed;
    return { ...inner, idKey: key, idKeyKeepMs: keyRetentionMs ?? DEFAULT_KEY_RETENTION_MS };
  }
  if (options.key !== undefined) {
    if (options.dedupTtlMs !== undefined) throw new InvalidArgumentError('key', 'a dedupTtlMs needs a dedupId');
    assertDedupId(options.key);
    return { dedupId: options.key, keepMs: options.keyRetentionMs ?? DEFAULT_KEY_RETENTION_MS };
  }
  if (options.keyRetentionMs !== undefined) throw new InvalidArgumentError('keyRetentionMs', 'needs a key');
  if (options.dedupId === undefined) return undefined;
  return { dedupId: options.dedupId, ...(options.dedupTtlMs === undefined ? {} : { ttlMs: options.dedupTtlMs }), ...(options.dedupMode === undefined ? {} : { mode: options.dedupMode }), ...(options.dedupKeepLast === undefined ? {} : { keepLast: options.dedupKeepLast }) };
}

/**
 * The verdict of one admission. Its `id` always names a job that exists (or existed: retention may
 * remove it later): the admitted job, or for a `duplicate` the job already holding the id or the
 * idempotency key, so `getJob(r.id)` and `waitUntilFinished(r.id)` follow the job that runs.
 * `existingId` repeats that id on a duplicate. The id a refused keyed admission minted is never
 * written; only the `deduplicated` event names it (as `refused`).
 */
export type EnqueueResult =
  | { readonly status: 'enqueued'; readonly id: JobId }
  | { readonly status: 'duplicate'; readonly id: JobId; readonly existingId: JobId };

/**
 * One item of {@link enqueueMany}: its verdict, or the typed error that refused it. A `failed`
 * item refused by a check or the server carries the id it was to be admitted under (given or
 * minted), and nothing was written under it; one failed by a `NotReplicatedError` carries the id
 * its verdict named (the job admitted, or kept, but not confirmed on a replica).
 */
export type EnqueueManyResult = EnqueueResult | { readonly status: 'failed'; readonly id: string; readonly error: Error };

function resolveId(id: JobId | string | undefined): JobId {
  if (id === undefined) return mintId('JOB');
  assertBrandedId(id);
  // The namespace is the script's to refuse (EMQKIND), so a wrong kind fails the same way everywhere.
  return id as JobId;
}

/**
 * Admits one job: immediate, scheduled, or under an idempotency key (queue.md §2). `trace` is the
 * producer's context a tracing subscriber supplied; it goes into the row [TS].
 */
export async function enqueue<T>(ctx: QueueContext<T>, payload: T, options: EnqueueOptions = {}, trace?: TraceContext): Promise<EnqueueResult> {
  checkEnqueueOptions(options);
  const id = resolveId(options.id);
  const raw = ctx.codec.encode(payload);
  // A zero delay is due now: it goes straight to pending, as BullMQ users expect.
  const timed = options.runAt !== undefined || (options.delayMs !== undefined && options.delayMs !== 0);
  if (options.runAt !== undefined && options.delayMs !== undefined) throw new InvalidArgumentError('options', 'give runAt or delayMs, not both');
  if (timed && options.lifo === true) throw new InvalidArgumentError('lifo', 'applies to an immediate admission, not one with runAt or delayMs');
  const fields = jobOptionFields(options, trace);
  const key = keyed(options);
  const admit = { queue: ctx.name, id, payload: raw, ...(fields === undefined ? {} : { options: fields }) };

  if (timed) {
    const when = options.runAt !== undefined ? { at: options.runAt instanceof Date ? options.runAt.getTime() : options.runAt } : { inMs: options.delayMs ?? 0 };
    // BullMQ users build on `delayed` at admission: both scripts publish it with the verdict.
    if (key === undefined) return verdict(id, await execute(ctx.conn, t.schedule({ ...admit, ...when, wake: true })));
    return keyedVerdict(id, await execute(ctx.conn, t.scheduleDedup({ ...admit, ...when, ...key, wake: true })));
  }
  if (key !== undefined) return keyedVerdict(id, await execute(ctx.conn, t.enqueueDedup({ ...admit, ...key, wake: true })));
  return verdict(id, await execute(ctx.conn, t.enqueue({ ...admit, wake: true })));
}

function verdict(id: JobId, admission: t.Admission): EnqueueResult {
  return admission === 'enqueued' ? { status: 'enqueued', id } : { status: 'duplicate', id, existingId: id };
}

/**
 * The verdict of a keyed admission. A refused one answers the job the key holds under both `id` and
 * `existingId`: the id this call minted (or was given) was never written, so handing it back would
 * send `getJob` and `waitUntilFinished` after a job that does not exist.
 */
function keyedVerdict(id: JobId, reply: t.DedupAdmission): EnqueueResult {
  return reply.status === 'enqueued' ? { status: 'enqueued', id } : { status: 'duplicate', id: reply.existingId, existingId: reply.existingId };
}

/** Options for an admission into a lane. */
export interface LaneEnqueueOptions extends JobOptions {
  /** The job's id; minted here when omitted. */
  readonly id?: JobId | string;
}

/** Admits a job into a lane (queue.md §5.1); `trace` as for {@link enqueue}. */
export async function enqueueInLane<T>(ctx: QueueContext<T>, group: BrandedId | string, payload: T, options: LaneEnqueueOptions = {}, trace?: TraceContext): Promise<EnqueueResult> {
  checkLaneOptions(options);
  const named = typeof group === 'string' && !isBrandedId(group);
  const g = laneGroupId(group);
  const id = resolveId(options.id);
  const base = jobOptionFields(options, trace);
  // A lane given by name keeps the name in the row [TS], so reads can give it back.
  const fields = named ? { ...base, lane: group } : base;
  const admit = { queue: ctx.name, id, payload: ctx.codec.encode(payload), group: g, ...(fields === undefined ? {} : { options: fields }) };
  return verdict(id, await execute(ctx.conn, t.laneEnqueue(admit)));
}

/** How many admissions one script call carries: bounds the time the server spends in one call. */
const CHUNK = 1000;

function manyVerdict(id: JobId, admission: t.ManyAdmission): EnqueueManyResult {
  if (admission === 'kind') return { status: 'failed', id, error: new KindError('job id must be JOB-namespaced') };
  if (admission === 'malformed') return { status: 'failed', id, error: new MalformedIdError(id, 'refused by the id check') };
  return verdict(id, admission);
}

/** One item of {@link enqueueMany}: a payload and, optionally, the options {@link enqueue} takes. */
export interface EnqueueManyItem<T> extends EnqueueOptions {
  readonly payload: T;
}

/** An item with no option at all: it goes through `enqueue_many`, exactly as before options existed. */
function isPlain(item: EnqueueManyItem<unknown>): boolean {
  return (
    item.name === undefined &&
    item.attempts === undefined &&
    item.backoff === undefined &&
    item.timeoutMs === undefined &&
    item.expireInMs === undefined &&
    item.expireAt === undefined &&
    item.lifo === undefined &&
    item.timestamp === undefined &&
    (item.priority === undefined || item.priority === 0) &&
    item.runAt === undefined &&
    (item.delayMs === undefined || item.delayMs === 0) &&
    item.dedupId === undefined &&
    item.dedupMode === undefined &&
    item.dedupKeepLast === undefined &&
    item.key === undefined &&
    item.keyRetentionMs === undefined
  );
}

/** An item prepared for the wire: checked, encoded, and routed. */
interface Prepared {
  readonly id: JobId;
  readonly payload: string;
  /** Where it goes: `plain` (enqueue_many), `with` (enqueue_many_with) or its own keyed admission. */
  readonly route: 'plain' | 'with' | 'keyed';
  readonly fields?: JobOptionFields;
  readonly when?: { readonly at: number } | { readonly inMs: number };
  /** The idempotency key (dedup id or business key) of a keyed item, with its release rule. */
  readonly key?: Keyed;
  readonly item: EnqueueManyItem<unknown>;
}

function prepare<T>(ctx: QueueContext<T>, item: EnqueueManyItem<T>): Prepared {
  const id = resolveId(item.id);
  const payload = ctx.codec.encode(item.payload);
  if (isPlain(item)) return { id, payload, route: 'plain', item };
  if (item.runAt !== undefined && item.delayMs !== undefined) throw new InvalidArgumentError('options', 'give runAt or delayMs, not both');
  const fields = jobOptionFields(item);
  const key = keyed(item);
  const timed = item.runAt !== undefined || (item.delayMs !== undefined && item.delayMs !== 0);
  if (timed && item.lifo === true) throw new InvalidArgumentError('lifo', 'applies to an immediate admission, not one with runAt or delayMs');
  const when = !timed ? undefined : item.runAt !== undefined ? { at: item.runAt instanceof Date ? item.runAt.getTime() : item.runAt } : { inMs: item.delayMs ?? 0 };
  return { id, payload, route: key === undefined ? 'with' : 'keyed', item, ...(key === undefined ? {} : { key }), ...(fields === undefined ? {} : { fields }), ...(when === undefined ? {} : { when }) };
}

/** The keyed admission of one item: `enqueue_dedup`, or `schedule_dedup` for a timed one. */
function keyedTransition(queue: string, p: Prepared): Transition<t.DedupAdmission> {
  const key = p.key as NonNullable<Prepared['key']>;
  const base = { queue, id: p.id, payload: p.payload, ...key, ...(p.fields === undefined ? {} : { options: p.fields }) };
  return p.when === undefined ? t.enqueueDedup({ ...base, wake: true }) : t.scheduleDedup({ ...base, ...p.when, wake: true });
}

type Batch = { readonly kind: 'many'; readonly members: readonly number[] } | { readonly kind: 'keyed'; readonly member: number };

/**
 * Admits many jobs in one pipeline (queue.md §2.3). Each item may carry the options
 * {@link enqueue} takes. Plain items go {@link CHUNK} to a call of `enqueue_many`; items with row
 * options or a time go {@link CHUNK} to a call of `enqueue_many_with` [TS]; an item with a
 * `dedupId` or a business `key` goes alone through its keyed admission. Every call travels in the same pipeline, and
 * verdicts come back in input order, one per item; a refused item never fails its neighbours.
 * Items are validated and encoded before anything is sent: a bad one throws and nothing is written.
 */
export async function enqueueMany<T>(ctx: QueueContext<T>, items: readonly EnqueueManyItem<T>[]): Promise<EnqueueManyResult[]> {
  for (const item of items) checkManyItemOptions(item);
  // The common case pays one cheap scan for options and nothing else.
  return items.every(isPlain) ? enqueuePlain(ctx, items) : enqueueMixed(ctx, items);
}

/** Plain items only: chunks of `enqueue_many`, one pipeline, verdicts in input order. */
async function enqueuePlain<T>(ctx: QueueContext<T>, items: readonly EnqueueManyItem<T>[]): Promise<EnqueueManyResult[]> {
  const prepared = items.map((item) => ({ id: resolveId(item.id), payload: ctx.codec.encode(item.payload) }));
  if (prepared.length === 0) return [];
  const chunks: (typeof prepared)[] = [];
  for (let start = 0; start < prepared.length; start += CHUNK) chunks.push(prepared.slice(start, start + CHUNK));
  // One wake token per chunk: the capped wake list could not hold one per job anyway.
  const results = await executeAll(ctx.conn, chunks.map((chunk) => t.enqueueMany({ queue: ctx.name, items: chunk, wake: true })));
  const out: EnqueueManyResult[] = [];
  results.forEach((result, c) => {
    const chunk = chunks[c] as (typeof chunks)[number];
    chunk.forEach(({ id }, i) => {
      const admission = result.ok ? result.value[i] : undefined;
      out.push(admission === undefined ? { status: 'failed', id, error: result.ok ? new Error('enqueue_many answered no verdict for this item') : result.error } : manyVerdict(id, admission));
    });
  });
  return out;
}

/** Items with options among them: each routed to its script, every call in one pipeline. */
async function enqueueMixed<T>(ctx: QueueContext<T>, items: readonly EnqueueManyItem<T>[]): Promise<EnqueueManyResult[]> {
  const prepared = items.map((item) => prepare(ctx, item));
  const plain: number[] = [];
  const withOptions: number[] = [];
  const batches: Batch[] = [];
  prepared.forEach((p, i) => {
    if (p.route === 'plain') plain.push(i);
    else if (p.route === 'with') withOptions.push(i);
    else batches.push({ kind: 'keyed', member: i });
  });
  const calls: Transition<t.ManyAdmission[] | t.DedupAdmission>[] = [];
  const order: Batch[] = [];
  for (let start = 0; start < plain.length; start += CHUNK) {
    const members = plain.slice(start, start + CHUNK);
    order.push({ kind: 'many', members });
    calls.push(t.enqueueMany({ queue: ctx.name, items: members.map((i) => prepared[i] as Prepared), wake: true }));
  }
  for (let start = 0; start < withOptions.length; start += CHUNK) {
    const members = withOptions.slice(start, start + CHUNK);
    order.push({ kind: 'many', members });
    const list = members.map((i) => {
      const p = prepared[i] as Prepared;
      return { id: p.id, payload: p.payload, ...(p.fields === undefined ? {} : { options: p.fields }), ...p.when };
    });
    calls.push(t.enqueueManyWith({ queue: ctx.name, items: list, wake: true }));
  }
  for (const batch of batches) {
    order.push(batch);
    if (batch.kind === 'keyed') calls.push(keyedTransition(ctx.name, prepared[batch.member] as Prepared));
  }
  const results = await executeAll(ctx.conn, calls);
  const out: EnqueueManyResult[] = new Array<EnqueueManyResult>(prepared.length);
  results.forEach((result, c) => {
    const batch = order[c] as Batch;
    if (batch.kind === 'keyed') {
      const { id } = prepared[batch.member] as Prepared;
      const reply = result.ok ? (result.value as t.DedupAdmission) : undefined;
      out[batch.member] = reply === undefined ? { status: 'failed', id, error: result.ok ? new Error('no verdict') : result.error } : keyedVerdict(id, reply);
      return;
    }
    batch.members.forEach((member, i) => {
      const { id } = prepared[member] as Prepared;
      const admission = result.ok ? (result.value as t.ManyAdmission[])[i] : undefined;
      out[member] = admission === undefined ? { status: 'failed', id, error: result.ok ? new Error('enqueue_many answered no verdict for this item') : result.error } : manyVerdict(id, admission);
    });
  });
  // `delayed` for a timed item is published by its admission script, in the same step (queue.md §12).
  return out;
}
