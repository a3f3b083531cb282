import { InvalidArgumentError, scripts, type BrandedId, type JobId } from '@echo/protocol';
import type { QueueContext } from './context.js';
import { claimedJob, parentLink, type ClaimedJob } from './job.js';

/** Options every claim takes. */
export interface ClaimOptions {
  /**
   * Also write each claimed job's worker-presence marker `job:<id>:lock` (holding the token) for
   * this many ms, in the same script, so `remove` refuses held jobs at no extra round trip.
   */
  readonly markerTtlMs?: number;
}

function markerArgs(options: ClaimOptions): number[] {
  const ttl = options.markerTtlMs;
  if (ttl === undefined) return [];
  if (!Number.isSafeInteger(ttl) || ttl <= 0) throw new InvalidArgumentError('markerTtlMs', 'must be a positive integer');
  return [ttl];
}

/** A lease length must be a positive whole number of ms. */
export function assertLease(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) throw new InvalidArgumentError('leaseMs', 'must be a positive integer');
}

type FlatEntry = [string, string, number, string | null, string | null, string | null];
type LaneEntry = [string, string, number, string];

function fromFlat<T>(ctx: QueueContext<T>, e: FlatEntry): ClaimedJob<T> {
  return claimedJob(ctx.codec, {
    id: e[0] as JobId,
    raw: e[1],
    attempts: e[2],
    group: undefined,
    parent: parentLink(e[3], e[4], e[5], ctx.name),
  });
}

function fromLane<T>(ctx: QueueContext<T>, e: LaneEntry): ClaimedJob<T> {
  return claimedJob(ctx.codec, { id: e[0] as JobId, raw: e[1], attempts: e[2], group: e[3] as BrandedId, parent: undefined });
}

/** Leases the oldest pending job, or answers `undefined` when none is claimable (queue.md §3.1). */
export async function claim<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T> | undefined> {
  assertLease(leaseMs);
  const k = ctx.keys;
  const reply = (await ctx.conn.run(scripts().claim, [k.pending, k.active, k.meta, k.jobRoot], [leaseMs, ...markerArgs(options)])) as FlatEntry | [];
  return reply.length === 0 ? undefined : fromFlat(ctx, reply);
}

/** Leases up to `size` oldest pending jobs under one deadline (queue.md §7). */
export async function claimBatch<T>(ctx: QueueContext<T>, size: number, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T>[]> {
  assertLease(leaseMs);
  if (!Number.isSafeInteger(size) || size < 1) throw new InvalidArgumentError('size', 'must be a positive integer');
  const k = ctx.keys;
  const reply = (await ctx.conn.run(scripts().bclaim, [k.pending, k.active, k.meta, k.jobRoot], [leaseMs, size, ...markerArgs(options)])) as FlatEntry[];
  return reply.map((e) => fromFlat(ctx, e));
}

function laneClaimKeys<T>(ctx: QueueContext<T>): string[] {
  const k = ctx.keys;
  return [k.ring, k.active, k.meta, k.gactive, k.glimit, k.jobRoot, k.laneRoot];
}

/** Rotates the ring one step and leases one job from that lane (queue.md §5.2). */
export async function laneClaim<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T> | undefined> {
  assertLease(leaseMs);
  const reply = (await ctx.conn.run(scripts().gclaim, laneClaimKeys(ctx), [leaseMs, ...markerArgs(options)])) as LaneEntry | [];
  return reply.length === 0 ? undefined : fromLane(ctx, reply);
}

/** Rotates once and leases as many jobs from that lane as its weight allows (queue.md §5.5). */
export async function laneWeightedClaim<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T>[]> {
  assertLease(leaseMs);
  const reply = (await ctx.conn.run(scripts().gwclaim, [...laneClaimKeys(ctx), ctx.keys.gweight], [leaseMs, ...markerArgs(options)])) as LaneEntry[];
  return reply.map((e) => fromLane(ctx, e));
}

/** Rotates once and leases the whole claimable depth of that lane, up to its limit (queue.md §7). */
export async function laneBatchClaim<T>(ctx: QueueContext<T>, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T>[]> {
  assertLease(leaseMs);
  const reply = (await ctx.conn.run(scripts().gbclaim, laneClaimKeys(ctx), [leaseMs, ...markerArgs(options)])) as LaneEntry[];
  return reply.map((e) => fromLane(ctx, e));
}
