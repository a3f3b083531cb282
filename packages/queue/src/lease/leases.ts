import { randomBytes } from 'node:crypto';
import { ConnectionLostError, execute, flowLink, reads, readJobOptions, transitions as t, type ClaimedRow, type HeldJob, type JobId } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { claimedJob, type ClaimedJob, type ParentLink } from '../core/job.js';
import * as controls from '../admin/controls.js';
import { childrenValues, reemitIfDead } from '../flows/flows.js';
import { addChildren, waitForChildren } from '../flows/steps.js';
import type { FlowChild, FlowResult } from '../flows/flow-shape.js';
import type { Progress } from '../reads/progress.js';
import { isMaxed as atConcurrencyCeiling } from '../reads/reads.js';
import type { ClaimOptions, CompleteManyOutcome, CompleteOptions, LaneBatchOptions, RetryOutcome, RoundOptions, RoundResult, SettleOptions, WakeChannel } from './options.js';
import { resendUntil, unreached } from './resend.js';
import { localNow } from '../core/clock.js';

/**
 * The latest local time each claimed job's lease can end, by the job object: the claim's send time
 * plus its lease. The server's deadline is its own now at the claim plus the lease, which is no
 * earlier, so a reply read after this time may be for a lease that already ended.
 */
const deadlines = new WeakMap<object, number>();

/**
 * Ms added to a recovery read's window (see {@link Leases} `#recover`): the read may run well after
 * the moment its window was measured on a loaded host, and a window too narrow misses the job (it
 * then waits out its lease); one too wide only reads more of `active`, once, on a rare path.
 */
const RECOVER_SLACK_MS = 10_000;

/** This process's claim tickets: a random prefix, then a counter, so no two claims share one. */
const TICKET_PREFIX = randomBytes(6).toString('base64url');
let ticketSeq = 0;

function nextTicket(): string {
  ticketSeq = (ticketSeq + 1) % Number.MAX_SAFE_INTEGER;
  return `${TICKET_PREFIX}.${ticketSeq.toString(36)}`;
}

/** The local bound on a claimed job's first lease (see {@link deadlines}); undefined for a job not claimed here. */
export function claimDeadline(job: object): number | undefined {
  return deadlines.get(job);
}

let build: <T>(ctx: QueueContext<T>) => Leases<T>;

/** The lease handle on a queue's context: how `Queue` builds the one `queue.leases()` answers. */
export function leasesOf<T>(ctx: QueueContext<T>): Leases<T> {
  return build(ctx);
}

/**
 * The lease side of one queue (queue.md §3, §4, §6.3, §7): claims, settlements, lock extension,
 * children, and a held job's side channels. What a {@link Worker} runs on, and the low-level form
 * of manual processing: get it with `queue.leases()`. Every settlement is fenced by the job's
 * token (its `attempts`), so a holder whose lease lapsed and was re-claimed cannot settle it.
 */
export class Leases<T> {
  /** The queue's name. */
  readonly queue: string;
  readonly #ctx: QueueContext<T>;

  static {
    build = (ctx) => new Leases(ctx);
  }

  // Private, so the context it holds stays out of the public types: `Queue` builds it through leasesOf.
  private constructor(ctx: QueueContext<T>) {
    this.#ctx = ctx;
    this.queue = ctx.name;
  }

  // Claims

  /** Leases the oldest pending job, or answers `undefined` when none is claimable (queue.md §3.1). */
  async claim(leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T> | undefined> {
    const jobs = await this.#leased(leaseMs, options, async (input) => {
      const row = await execute(this.#ctx.conn, t.claim(input));
      return row === undefined ? [] : [row];
    });
    return jobs[0];
  }

  /** Leases up to `size` oldest pending jobs under one deadline (queue.md §7). */
  claimBatch(size: number, leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T>[]> {
    return this.#leased(leaseMs, options, (input) => execute(this.#ctx.conn, t.claimBatch({ ...input, size })));
  }

  /** Rotates the lane ring one step and leases one job from that lane (queue.md §5.2). */
  async laneClaim(leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T> | undefined> {
    const jobs = await this.#leased(leaseMs, options, async (input) => {
      const row = await execute(this.#ctx.conn, t.laneClaim(input));
      return row === undefined ? [] : [row];
    });
    return jobs[0];
  }

  /** Rotates once and leases as many jobs from that lane as its weight allows (queue.md §5.5). */
  laneWeightedClaim(leaseMs: number, options: ClaimOptions = {}): Promise<ClaimedJob<T>[]> {
    return this.#leased(leaseMs, options, (input) => execute(this.#ctx.conn, t.laneWeightedClaim(input)));
  }

  /** Rotates once and leases the claimable depth of that lane (up to `size` [TS]), up to its limit (queue.md §7). */
  laneBatchClaim(leaseMs: number, options: LaneBatchOptions = {}): Promise<ClaimedJob<T>[]> {
    return this.#leased(leaseMs, options, (input) => execute(this.#ctx.conn, t.laneBatchClaim(options.size === undefined ? input : { ...input, size: options.size })));
  }

  /**
   * Completes held plain jobs (each fenced on its own token; a flow child answers `flow` and must go
   * through {@link complete}) and then leases up to `size` oldest pending jobs, in one script [TS]:
   * a busy worker's whole round in one round trip. When the reply is cut off, the claims are
   * recovered as {@link ClaimOptions.recover} says and the completions are sent again on their own
   * (each fenced on its token, so none lands twice); `resent` then says a `gone` may be this call's
   * own first landing.
   */
  async completeAndClaim(jobs: readonly HeldJob[], size: number, leaseMs: number, options: RoundOptions = {}): Promise<RoundResult<T>> {
    const publish = options.publish === true;
    let round: t.Round | undefined;
    const claimed = await this.#leased(leaseMs, options, async (input) => {
      round = await execute(this.#ctx.conn, t.completeAndClaim({ ...input, jobs, size, publish }));
      return round.claimed;
    });
    if (round !== undefined) return { completions: round.completions, claimed, limitedMs: round.limitedMs, resent: false };
    // The fused call was cut off and its claims recovered: the completions go again, fenced.
    const completions = jobs.length === 0 ? [] : await resendUntil(localNow() + leaseMs, new ConnectionLostError('round cut off'), () => this.completeMany(jobs, { publish }));
    return { completions, claimed, limitedMs: 0, resent: true };
  }

  /**
   * Sends a claim with a ticket (unless `recover: false`) and decodes what it leased. When the reply
   * is lost to a dropped link, reads back what the ticket leased, resending that read until a
   * primary answers or one lease has passed since the claim went out; throws the claim's error
   * when nothing could be read back.
   */
  async #leased(leaseMs: number, options: ClaimOptions, send: (input: t.ClaimInput) => Promise<readonly ClaimedRow[]>): Promise<ClaimedJob<T>[]> {
    const ticket = options.recover === false ? undefined : nextTicket();
    const input = this.#input(leaseMs, options, ticket);
    const sent = localNow();
    try {
      const rows = await send(input);
      const until = this.#until(sent, leaseMs);
      return rows.map((row) => this.#decode(row, until));
    } catch (error) {
      if (ticket === undefined || !unreached(error)) throw error;
      return this.#recover(ticket, sent, leaseMs, error);
    }
  }

  /** The jobs a cut-off claim with `ticket`, sent at `sent`, leased and still holds (see {@link #leased}). */
  async #recover(ticket: string, sent: number, leaseMs: number, error: unknown): Promise<ClaimedJob<T>[]> {
    let asked = localNow();
    const rows = await resendUntil(sent + leaseMs, error, () => {
      asked = localNow();
      // The slack widens the window (more rows read, none missed) for a server clock read later than ours.
      return execute(this.#ctx.conn, t.recoverClaims({ queue: this.#ctx.name, ticket, sinceMs: Math.ceil(asked - sent) + RECOVER_SLACK_MS, leaseMs }));
    });
    // The lease ends no earlier than the claim's send plus the lease, nor than the read's send plus what it had left.
    return rows.map((row) => this.#decode(row, Math.max(sent + leaseMs, asked + row.leftMs)));
  }

  /** True when `meta.concurrency` is set and that many jobs are active: a claim now would be refused. */
  isMaxed(): Promise<boolean> {
    return atConcurrencyCeiling(this.#ctx);
  }

  /** How many jobs wait in the flat pending set (a batch worker's shaping reads it). */
  async pending(): Promise<number> {
    const counts = await execute(this.#ctx.conn, t.counts({ queue: this.#ctx.name, names: ['pending'] }));
    return counts.pending;
  }

  /** Opens the queue's wake list on a connection of its own, named `label` (`CLIENT SETNAME`). */
  async openWake(label: string): Promise<WakeChannel<T>> {
    const conn = await this.#ctx.conn.duplicate(label);
    const key = this.#ctx.keys.wake;
    const next = (blockMs: number): Promise<string | null> => reads.sendRead(conn, reads.queue.wake({ key, timeoutMs: blockMs }));
    return {
      next,
      nextThenClaim: async (blockMs, leaseMs, options = {}) => {
        // A link that is down would hold the claim until it is back, and its lease, counted from
        // now, would look half gone on arrival: the wait goes alone then.
        if (conn.status !== 'ready') return { token: await next(blockMs), job: undefined };
        // Both leave in this order on the one socket before either awaits: the server holds the
        // claim behind the blocked pop and runs it as the pop ends, with no round trip between.
        const token = next(blockMs);
        const claimed = this.#leased(leaseMs, options, async (input) => {
          const row = await execute(conn, t.claim(input));
          return row === undefined ? [] : [row];
        });
        const [popped, leased] = await Promise.allSettled([token, claimed]);
        const job = leased.status === 'fulfilled' ? leased.value[0] : undefined;
        if (popped.status === 'fulfilled') {
          if (leased.status === 'rejected') throw leased.reason;
          return { token: popped.value, job };
        }
        // The wait failed; a claim read back after the cut-off still holds its job for us.
        if (job === undefined) throw popped.reason;
        return { token: null, job };
      },
      close: () => conn.close({ immediate: true }),
    };
  }

  // Settlements

  /**
   * Settles a held job as done (queue.md §3.3). For a flow child the parent is fed in the same atomic
   * step: directly when it shares the queue, through this queue's outbox otherwise. The row leaves
   * with its `:lock` and `:logs`.
   * @throws StaleError when the token no longer matches; GoneError when the job no longer exists.
   */
  async complete(job: HeldJob, result?: string, options: CompleteOptions = {}): Promise<void> {
    await execute(this.#ctx.conn, t.complete({ queue: this.#ctx.name, job, ...(result === undefined ? {} : { result }), publish: options.publish === true }));
  }

  /**
   * Settles many held plain jobs as done in one script, each fenced on its own token [TS]. Answers
   * one outcome per job, in order; a flow child answers `flow` and must go through {@link complete}.
   */
  async completeMany(jobs: readonly HeldJob[], options: CompleteOptions = {}): Promise<CompleteManyOutcome[]> {
    if (jobs.length === 0) return [];
    return execute(this.#ctx.conn, t.completeBatch({ queue: this.#ctx.name, jobs, publish: options.publish === true }));
  }

  /**
   * Whether the server holds a completion of `job` under its token [TS]: for a completion resent after
   * its first send's reply was lost, and refused as `gone` (the row is gone or already completed),
   * this tells whether that first send landed. Reads the row (a retained completed row keeps the
   * `attempts` it was completed under) and, when it is gone, the queue's recent completions. Answers
   * `undefined` when the server cannot tell: the job is in neither, or its entry does not carry the
   * token.
   */
  async completedUnder(job: HeldJob): Promise<boolean | undefined> {
    const row = await reads.sendRead(this.#ctx.conn, reads.queue.jobToken({ keys: this.#ctx.keys, id: job.id as JobId }));
    if (row.attempts !== undefined) return row.state === 'completed' && row.attempts === job.attempts;
    const outcome = (await reads.sendRead(this.#ctx.conn, reads.queue.outcomes({ keys: this.#ctx.keys }))).find((o) => o.job === job.id);
    return outcome?.token === undefined ? undefined : outcome.token === job.attempts;
  }

  /**
   * Settles a held job as failed (queue.md §4.1): rescheduled after `delayMs`, or dead-lettered once
   * its attempts reach `maxAttempts`, with `error` kept as `last_error` either way. A flow child that
   * dies under a fail-parent policy in this queue takes its parent with it in the same script; pass
   * that death on up the flow with {@link passDeathUp}.
   */
  async retry(job: HeldJob, delayMs: number, maxAttempts: number, error: string, options: SettleOptions = {}): Promise<RetryOutcome> {
    return execute(this.#ctx.conn, t.retry({ queue: this.#ctx.name, job, delayMs, maxAttempts, error, publish: options.publish === true }));
  }

  /**
   * After {@link retry} dead-lettered a flow child whose fail-parent parent lives in this queue (so
   * the parent died in the same script), sends the parent's death on to its own parent, up the
   * tree (queue.md §11). Answers false, sending nothing, for any other job; true when the parent
   * was dead and its death went on. Idempotent.
   */
  async passDeathUp(job: { readonly parent?: ParentLink | undefined }, error: string): Promise<boolean> {
    const parent = job.parent;
    if (parent?.queue !== this.#ctx.name || parent.policy !== 'fp') return false;
    return reemitIfDead(this.#ctx, this.#ctx.name, parent.id, error);
  }

  /**
   * Hands a held job back until later without counting a failure; attempts is kept (queue.md §8.3).
   * `until` is a delay in ms from the server's now, or an absolute Date.
   */
  async delay(job: HeldJob, until: number | Date, options: SettleOptions = {}): Promise<void> {
    await execute(this.#ctx.conn, t.delay({ queue: this.#ctx.name, job, until, publish: options.publish === true }));
  }

  // Lock extension

  /** Pushes one held job's lease out to `leaseMs` from the server's now (queue.md §6.3). */
  async extendLock(job: HeldJob, leaseMs: number): Promise<void> {
    await execute(this.#ctx.conn, t.extendLock({ queue: this.#ctx.name, job, leaseMs }));
  }

  /**
   * Extends many leases under one server time; answers the ids that could NOT be extended (gone,
   * stale or no longer active), so the caller can stop working on them. With `markerTtlMs`, each
   * extended job's `:lock` marker is refreshed in the same step.
   */
  async extendLocks(jobs: readonly HeldJob[], leaseMs: number, markerTtlMs?: number): Promise<JobId[]> {
    if (jobs.length === 0) return [];
    return execute(this.#ctx.conn, t.extendLocks({ queue: this.#ctx.name, jobs, leaseMs, ...(markerTtlMs === undefined ? {} : { markerTtlMs }) }));
  }

  /**
   * Hands back held jobs this holder will not run, in one step [TS]: each job still held under its
   * token goes back where a claim finds it (pending, or its lane), as if never claimed, without
   * counting a failure, and a parked worker is woken to take it. A job held under another token (its
   * lease lapsed and someone else took it), no longer active, or gone is left alone. Answers the ids
   * given back.
   */
  async giveBack(jobs: readonly HeldJob[]): Promise<JobId[]> {
    if (jobs.length === 0) return [];
    return execute(this.#ctx.conn, t.giveBack({ queue: this.#ctx.name, jobs }));
  }

  // Children and side channels of a held job

  /**
   * Adds children to a held job, which becomes their flow parent (same queue or others, nested, with
   * the fail-parent / ignore policies of flows) [TS]; the job stays active until it calls
   * {@link waitForChildren}. Children may live in other queues, with payloads of their own types.
   * A worker's handler uses `ctx.addChildren`.
   */
  addChildren(job: HeldJob, children: readonly FlowChild<unknown>[]): Promise<FlowResult[]> {
    const ctx: QueueContext<unknown> = this.#ctx;
    return addChildren(ctx, job, children);
  }

  /**
   * Moves a held job with open children to `awaiting_children` [TS]; it runs again once they are
   * done. Answers how many it waits on, 0 when none is open (nothing changed).
   */
  waitForChildren(job: HeldJob): Promise<number> {
    return waitForChildren(this.#ctx, job);
  }

  /** The results a parent's completed children left, child id → result. */
  childrenValues(parentId: JobId | string): Promise<Record<string, string>> {
    return childrenValues(this.#ctx, parentId);
  }

  /** Records a job's progress and publishes the `progress` event. */
  updateProgress(id: string, progress: Progress): Promise<void> {
    return controls.updateProgress(this.#ctx, id, progress);
  }

  /** Appends a line to a job's log; answers the log's length. */
  addLog(id: string, line: string): Promise<number> {
    return controls.addLog(this.#ctx, id, line);
  }

  /**
   * [TS] Job `id` as a worker holding it would see it (payload, attempts, options), read from its
   * row; `undefined` when the row is gone. For reports about a job this process does not hold: a
   * worker hands its `failed` listeners the jobs its stalled sweep dead-lettered this way.
   */
  async readAsClaimed(id: JobId): Promise<ClaimedJob<T> | undefined> {
    const row = await reads.sendRead(this.#ctx.conn, reads.queue.job({ keys: this.#ctx.keys, id }));
    if (!row) return undefined;
    const u = row.unknown;
    const options = readJobOptions(u.name, u.max_attempts, u.backoff, u.timeout_ms, u.traceparent, u.tracestate);
    return claimedJob(this.#ctx.codec, { id, raw: row.payload, attempts: row.attempts, group: row.group as ClaimedRow['group'], parent: flowLink(row.parent, row.parentQueue, row.parentPolicy, this.#ctx.name), options });
  }

  #input(leaseMs: number, options: ClaimOptions, ticket: string | undefined): t.ClaimInput {
    const queue = this.#ctx.name;
    const base = options.markerTtlMs === undefined ? { queue, leaseMs } : { queue, leaseMs, markerTtlMs: options.markerTtlMs };
    return ticket === undefined ? base : { ...base, ticket };
  }

  /**
   * A local time before which a lease granted by a claim sent at `sent` cannot have ended (the
   * server's deadline is its own now at the claim plus the lease). A call held while the
   * connection was down goes out once it is ready again, so when the connection became ready after
   * the send, the lease began no earlier than that: a claim that waited out an outage is not taken
   * for a late one.
   */
  #until(sent: number, leaseMs: number): number {
    return Math.max(sent, this.#ctx.conn.stats().readyAt) + leaseMs;
  }

  /** The claimed job of a leased row, its lease bound noted; the payload decodes on first read. */
  #decode(row: ClaimedRow, until: number): ClaimedJob<T> {
    const job = claimedJob(this.#ctx.codec, { id: row.id, raw: row.payload, attempts: row.attempts, group: row.group, parent: row.parent, options: row.options });
    deadlines.set(job, until);
    return job;
  }
}
