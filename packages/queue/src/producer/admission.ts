import { assertBrandedId, execute, executeAll, InvalidArgumentError, mintId, transitions as t, type BrandedId, type JobId } from '@echo/protocol';
import type { QueueContext } from '../context.js';

/** Options for one admission. */
export interface EnqueueOptions {
  /** The job's id; minted here when omitted. Enqueue is idempotent by id, so a retry is safe. */
  readonly id?: JobId | string;
  /** Run no earlier than this absolute time (epoch ms, or a Date). */
  readonly runAt?: number | Date;
  /** Run no earlier than this many ms from the server's now. */
  readonly delayMs?: number;
  /** An idempotency key: later admissions under it report the first job's id. */
  readonly dedupId?: string;
  /** How long the idempotency key holds, in ms; forever when omitted. */
  readonly dedupTtlMs?: number;
}

/** The verdict of one admission. */
export type EnqueueResult =
  | { readonly status: 'enqueued'; readonly id: JobId }
  | { readonly status: 'duplicate'; readonly id: JobId; readonly existingId: JobId };

/** One item of {@link enqueueMany}: its verdict, or the typed error that refused it. */
export type EnqueueManyResult = EnqueueResult | { readonly status: 'failed'; readonly id: string; readonly error: Error };

function resolveId(id: JobId | string | undefined): JobId {
  if (id === undefined) return mintId('JOB');
  assertBrandedId(id);
  // The namespace is the script's to refuse (EMQKIND), so a wrong kind fails the same way everywhere.
  return id as JobId;
}

/** Admits one job: immediate, scheduled, or under an idempotency key (queue.md §2). */
export async function enqueue<T>(ctx: QueueContext<T>, payload: T, options: EnqueueOptions = {}): Promise<EnqueueResult> {
  const id = resolveId(options.id);
  const raw = ctx.codec.encode(payload);
  const timed = options.runAt !== undefined || options.delayMs !== undefined;
  if (timed && options.dedupId !== undefined) throw new InvalidArgumentError('options', 'dedupId cannot be combined with runAt or delayMs');
  if (options.runAt !== undefined && options.delayMs !== undefined) throw new InvalidArgumentError('options', 'give runAt or delayMs, not both');
  const admit = { queue: ctx.name, id, payload: raw };

  if (timed) {
    const when = options.runAt !== undefined ? { at: options.runAt instanceof Date ? options.runAt.getTime() : options.runAt } : { inMs: options.delayMs ?? 0 };
    return verdict(id, await execute(ctx.conn, t.schedule({ ...admit, ...when })));
  }
  if (options.dedupId !== undefined) {
    const ttl = options.dedupTtlMs === undefined ? {} : { ttlMs: options.dedupTtlMs };
    const reply = await execute(ctx.conn, t.enqueueDedup({ ...admit, dedupId: options.dedupId, ...ttl, wake: true }));
    return reply.status === 'enqueued' ? { status: 'enqueued', id } : { status: 'duplicate', id, existingId: reply.existingId };
  }
  return verdict(id, await execute(ctx.conn, t.enqueue({ ...admit, wake: true })));
}

function verdict(id: JobId, admission: t.Admission): EnqueueResult {
  return admission === 'enqueued' ? { status: 'enqueued', id } : { status: 'duplicate', id, existingId: id };
}

/** Admits a job into a lane (queue.md §5.1). */
export async function enqueueInLane<T>(ctx: QueueContext<T>, group: BrandedId | string, payload: T, options: { readonly id?: JobId | string } = {}): Promise<EnqueueResult> {
  assertBrandedId(group);
  const id = resolveId(options.id);
  return verdict(id, await execute(ctx.conn, t.laneEnqueue({ queue: ctx.name, id, payload: ctx.codec.encode(payload), group })));
}

/** How many admissions go out in one pipeline; bounds memory and per-pipeline latency. */
const CHUNK = 1000;
/** One wake token per this many admissions in a batch. */
const WAKE_EVERY = 16;

/**
 * Admits many jobs in pipelines of EVALSHAs (queue.md §2.3). Verdicts come back in input order, one
 * per item; a refused item never fails its neighbours. Items are validated before anything is sent.
 */
export async function enqueueMany<T>(
  ctx: QueueContext<T>,
  items: readonly { readonly payload: T; readonly id?: JobId | string }[],
): Promise<EnqueueManyResult[]> {
  const prepared = items.map((item, i) => {
    const id = resolveId(item.id);
    // A wake token per job would cost two server commands each; one every WAKE_EVERY jobs (and on
    // the last) wakes as many parked consumers as the capped wake list can hold anyway.
    const wake = i % WAKE_EVERY === WAKE_EVERY - 1 || i === items.length - 1;
    return { id, call: t.enqueue({ queue: ctx.name, id, payload: ctx.codec.encode(item.payload), wake }) };
  });
  const out: EnqueueManyResult[] = [];
  for (let start = 0; start < prepared.length; start += CHUNK) {
    const chunk = prepared.slice(start, start + CHUNK);
    const results = await executeAll(ctx.conn, chunk.map((p) => p.call));
    results.forEach((result, i) => {
      const id = (chunk[i] as (typeof chunk)[number]).id;
      out.push(result.ok ? verdict(id, result.value) : { status: 'failed', id, error: result.error });
    });
  }
  return out;
}
