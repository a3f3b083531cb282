import {
  assertBrandedId,
  assertDedupId,
  InvalidArgumentError,
  mintId,
  scripts,
  type BrandedId,
  type JobId,
  type ScriptCall,
} from '@echo/protocol';
import type { QueueContext } from './context.js';

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

function wholeMs(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}`);
  return value;
}

/** Admits one job: immediate, scheduled, or under an idempotency key (queue.md §2). */
export async function enqueue<T>(ctx: QueueContext<T>, payload: T, options: EnqueueOptions = {}): Promise<EnqueueResult> {
  const { keys, conn } = ctx;
  const id = resolveId(options.id);
  const raw = ctx.codec.encode(payload);
  const timed = options.runAt !== undefined || options.delayMs !== undefined;
  if (timed && options.dedupId !== undefined) throw new InvalidArgumentError('options', 'dedupId cannot be combined with runAt or delayMs');
  if (options.runAt !== undefined && options.delayMs !== undefined) throw new InvalidArgumentError('options', 'give runAt or delayMs, not both');

  if (timed) {
    const [mode, ms] =
      options.runAt !== undefined
        ? ['at', wholeMs('runAt', options.runAt instanceof Date ? options.runAt.getTime() : options.runAt, 0)]
        : ['in', wholeMs('delayMs', options.delayMs ?? 0, 0)];
    const reply = await conn.run(scripts().schedule, [keys.job(id), keys.schedule], [id, raw, mode, ms]);
    return reply === 1 ? { status: 'enqueued', id } : { status: 'duplicate', id, existingId: id };
  }

  if (options.dedupId !== undefined) {
    assertDedupId(options.dedupId);
    const ttl = options.dedupTtlMs === undefined ? '' : wholeMs('dedupTtlMs', options.dedupTtlMs, 1);
    const reply = (await conn.run(scripts().enqueue_dedup, [keys.job(id), keys.pending, keys.dedup(options.dedupId), keys.wake], [id, raw, ttl])) as [
      number,
      string,
    ];
    if (reply[0] === 1) return { status: 'enqueued', id };
    return { status: 'duplicate', id, existingId: reply[1] as JobId };
  }

  const reply = await conn.run(scripts().enqueue, [keys.job(id), keys.pending, keys.wake], [id, raw]);
  return reply === 1 ? { status: 'enqueued', id } : { status: 'duplicate', id, existingId: id };
}

/** Admits a job into a lane (queue.md §5.1). */
export async function enqueueInLane<T>(ctx: QueueContext<T>, group: BrandedId | string, payload: T, options: { readonly id?: JobId | string } = {}): Promise<EnqueueResult> {
  const { keys, conn } = ctx;
  assertBrandedId(group);
  const id = resolveId(options.id);
  const raw = ctx.codec.encode(payload);
  const reply = await conn.run(
    scripts().genqueue,
    [keys.job(id), keys.lane(group), keys.ring, keys.paused, keys.glimit, keys.gactive, keys.wake],
    [id, raw, group],
  );
  return reply === 1 ? { status: 'enqueued', id } : { status: 'duplicate', id, existingId: id };
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
  const { keys, conn } = ctx;
  const prepared = items.map((item, i) => {
    const id = resolveId(item.id);
    // A wake token per job would cost two server commands each; one every WAKE_EVERY jobs (and on
    // the last) wakes as many parked consumers as the capped wake list can hold anyway.
    const wake = i % WAKE_EVERY === WAKE_EVERY - 1 || i === items.length - 1;
    const k = wake ? [keys.job(id), keys.pending, keys.wake] : [keys.job(id), keys.pending];
    return { id, call: { script: scripts().enqueue, keys: k, args: [id, ctx.codec.encode(item.payload)] } satisfies ScriptCall };
  });
  const out: EnqueueManyResult[] = [];
  for (let start = 0; start < prepared.length; start += CHUNK) {
    const chunk = prepared.slice(start, start + CHUNK);
    const results = await conn.runBatch(chunk.map((p) => p.call));
    results.forEach((result, i) => {
      const id = (chunk[i] as (typeof chunk)[number]).id;
      if (!result.ok) out.push({ status: 'failed', id, error: result.error });
      else out.push(result.value === 1 ? { status: 'enqueued', id } : { status: 'duplicate', id, existingId: id });
    });
  }
  return out;
}
