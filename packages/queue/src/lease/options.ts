import type { HeldJob, transitions as t } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';

/*
 * What the lease verbs take and answer: the options of claims and settlements, a round's result
 * and the wake channel. The verbs themselves are `Leases`'.
 */

export type { HeldJob };

/** Options every claim takes. */
export interface ClaimOptions {
  /**
   * Also write each claimed job's worker-presence marker `job:<id>:lock` (holding the token) for
   * this many ms, in the same script, so `remove` refuses held jobs at no extra round trip.
   */
  readonly markerTtlMs?: number;
  /**
   * Recover a claim whose reply is lost [TS] (the link dropped, or the master died, after the
   * script ran): the claim leaves a ticket on each row it leases, and on a cut-off the jobs it
   * leased are read back by that ticket once a primary answers (up to one lease after the send) and
   * answered as if the reply had come, instead of staying out of every worker's reach until their
   * lease lapses. Default true; `false` sends no ticket.
   */
  readonly recover?: boolean;
}

/** Options of a lane batch claim. */
export interface LaneBatchOptions extends ClaimOptions {
  /** The most jobs to lease [TS]; without it, the lane's whole claimable depth. */
  readonly size?: number;
}

/** Options of {@link Leases.completeAndClaim}. */
export interface RoundOptions extends ClaimOptions {
  /** Publish the `completed` event of each completed job inside the same script. */
  readonly publish?: boolean;
}

/** What one {@link Leases.completeAndClaim} did: an outcome per completed job, in order, and the jobs claimed. */
export interface RoundResult<T> {
  readonly completions: t.BatchCompletion[];
  readonly claimed: ClaimedJob<T>[];
  /** When the queue's rate limit refused the claim: ms until its window reopens; else 0. */
  readonly limitedMs: number;
  /**
   * True when the round's reply was cut off and the completions were sent again on their own: a
   * `gone` among them may be this round's own first landing (ask `completedUnder`).
   */
  readonly resent: boolean;
}

/** Options for {@link Leases.complete} and {@link Leases.completeMany}. */
export interface CompleteOptions {
  /** Publish the `completed` event inside the same script, atomically with the verdict. */
  readonly publish?: boolean;
}

/** Options for {@link Leases.retry} and {@link Leases.delay}. */
export interface SettleOptions {
  /** Publish the settlement's event (`failed` with its `outcome`, or `delayed`) inside the same script. */
  readonly publish?: boolean;
}

/** The retry verdict: rescheduled for another attempt, or dead-lettered at the cap. */
export type RetryOutcome = t.RetryOutcome;

/** How one member of {@link Leases.completeMany} ended. */
export type CompleteManyOutcome = t.BatchCompletion;

/** What {@link WakeChannel.nextThenClaim} answers. */
export interface WakeClaim<T> {
  /** The token the wait popped; `null` when it timed out (or failed after its claim leased a job). */
  readonly token: string | null;
  /** The job the claim behind the wait leased, if one was pending. */
  readonly job: ClaimedJob<T> | undefined;
}

/**
 * The queue's wake list on a connection of its own: a worker's one blocking read, woken by every
 * admission and by due hints (`d:<ms>`).
 */
export interface WakeChannel<T = unknown> {
  /** The next token, waiting up to `blockMs`; `null` on timeout. */
  next(blockMs: number): Promise<string | null>;
  /**
   * The next token, with a claim of the oldest pending job sent right behind the wait on the same
   * connection [TS]: the server runs the claim the moment the wait ends (a token or the timeout),
   * so an idle worker's pickup is one hop from the admission instead of two. The claim goes out
   * with a ticket, as {@link Leases.claim}'s does: a reply cut off is read back on the queue's own
   * connection. Answers the token (`null` on timeout) and the job claimed, if any; throws the
   * wait's error when it failed and nothing was claimed. While the connection is not ready (a
   * reconnect under way) the wait goes alone and no job comes back: a claim held until the link is
   * back would count its lease from before the outage.
   */
  nextThenClaim(blockMs: number, leaseMs: number, options?: ClaimOptions): Promise<WakeClaim<T>>;
  /** Closes the channel at once, interrupting a wait with `ConnectionClosedError`. */
  close(): Promise<void>;
}
