import { execute, transitions as t, type ClaimedRow, type HeldJob } from '@echo/protocol';
import type { QueueContext } from '../context.js';
import { claimedJob, type ClaimedJob } from '../job.js';

/** Options every claim takes. */
export interface ClaimOptions {
  /**
   * Also write each claimed job's worker-presence marker `job:<id>:lock` (holding the token) for
   * this many ms, in the same script, so `remove` refuses held jobs at no extra round trip.
   */
  readonly markerTtlMs?: number;
}

function input<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions): t.ClaimInput {
  return options.markerTtlMs === undefined ? { queue: ctx.name, leaseMs } : { queue: ctx.name, leaseMs, markerTtlMs: options.markerTtlMs };
}

/** Builds the claimed job of a leased row; the payload decodes on first read. */
export function decode<T>(ctx: QueueContext<T>, row: ClaimedRow): ClaimedJob<T> {
  return claimedJob(ctx.codec, { id: row.id, raw: row.payload, attempts: row.attempts, group: row.group, parent: row.parent, options: row.options });
}

/** Leases the oldest pending job, or answers `undefined` when none is claimable (queue.md §3.1). */
export async function claim<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T> | undefined> {
  const row = await execute(ctx.conn, t.claim(input(ctx, leaseMs, options)));
  return row === undefined ? undefined : decode(ctx, row);
}

/** Leases up to `size` oldest pending jobs under one deadline (queue.md §7). */
export async function claimBatch<T>(ctx: QueueContext<T>, size: number, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T>[]> {
  const rows = await execute(ctx.conn, t.claimBatch({ ...input(ctx, leaseMs, options), size }));
  return rows.map((row) => decode(ctx, row));
}

/** Rotates the ring one step and leases one job from that lane (queue.md §5.2). */
export async function laneClaim<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T> | undefined> {
  const row = await execute(ctx.conn, t.laneClaim(input(ctx, leaseMs, options)));
  return row === undefined ? undefined : decode(ctx, row);
}

/** Rotates once and leases as many jobs from that lane as its weight allows (queue.md §5.5). */
export async function laneWeightedClaim<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T>[]> {
  const rows = await execute(ctx.conn, t.laneWeightedClaim(input(ctx, leaseMs, options)));
  return rows.map((row) => decode(ctx, row));
}

/** Options of a lane batch claim. */
export interface LaneBatchOptions extends ClaimOptions {
  /** The most jobs to lease [TS]; without it, the lane's whole claimable depth. */
  readonly size?: number;
}

/** Rotates once and leases the claimable depth of that lane (up to `size`), up to its limit (queue.md §7). */
export async function laneBatchClaim<T>(ctx: QueueContext<T>, leaseMs: number, options: LaneBatchOptions = {}): Promise<ClaimedJob<T>[]> {
  const base = input(ctx, leaseMs, options);
  const rows = await execute(ctx.conn, t.laneBatchClaim(options.size === undefined ? base : { ...base, size: options.size }));
  return rows.map((row) => decode(ctx, row));
}

/** Options of {@link completeAndClaim}. */
export interface RoundOptions extends ClaimOptions {
  /** Publish the `completed` event of each completed job inside the same script. */
  readonly publish?: boolean;
}

/** What one {@link completeAndClaim} did: an outcome per completed job, in order, and the jobs claimed. */
export interface RoundResult<T> {
  readonly completions: t.BatchCompletion[];
  readonly claimed: ClaimedJob<T>[];
  /** When the queue's rate limit refused the claim: ms until its window reopens; else 0. */
  readonly limitedMs: number;
}

/**
 * Completes held plain jobs (each fenced on its own token; a flow child answers `flow` and must go
 * through complete) and then leases up to `size` oldest pending jobs, in one script [TS]: a busy
 * worker's whole round in one round trip.
 */
export async function completeAndClaim<T>(ctx: QueueContext<T>, jobs: readonly HeldJob[], size: number, leaseMs: number, options: RoundOptions = {}): Promise<RoundResult<T>> {
  const round = await execute(ctx.conn, t.completeAndClaim({ ...input(ctx, leaseMs, options), jobs, size, publish: options.publish === true }));
  return { completions: round.completions, claimed: round.claimed.map((row) => decode(ctx, row)), limitedMs: round.limitedMs };
}
