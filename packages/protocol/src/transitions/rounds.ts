import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { fromFlat, ticketArg, type ClaimedRow, type ClaimInput } from './claims.js';
import { batchCompletions, heldTriples, type BatchCompletion, type HeldJob } from './settlement.js';
import { checkedTransition, type Transition } from './transition.js';
import { whole } from './values.js';
import { decimal, decimals, list, tuple } from '../reply-shapes.js';

/** Input of {@link completeAndClaim}. */
export interface CompleteAndClaimInput extends ClaimInput {
  /** The held jobs to complete first (plain jobs; a flow child answers `flow`). May be empty. */
  readonly jobs: readonly HeldJob[];
  /** Most jobs to claim after settling; 0 claims nothing. */
  readonly size: number;
  /** Publish a `completed` event per settled job in the same step. */
  readonly publish?: boolean;
}

/** What one worker round did: an outcome per completed job, in order, and the jobs it claimed. */
export interface Round {
  readonly completions: BatchCompletion[];
  readonly claimed: ClaimedRow[];
  /** When the rate limit refused the claim [TS]: ms until its window reopens; else 0. */
  readonly limitedMs: number;
}

/**
 * `complete_claim` [TS]: completes the held jobs as {@link completeBatch} does, then leases up to
 * `size` oldest pending jobs as {@link claimBatch} does, in one script: a busy worker's round trip.
 */
export function completeAndClaim(input: CompleteAndClaimInput): Transition<Round> {
  const call = bind(scripts().complete_claim, {
    scope: { q: input.queue },
    args: {
      publish: input.publish ? '1' : '',
      lease_ms: whole('leaseMs', input.leaseMs, 1),
      size: whole('size', input.size, 0),
      marker: input.markerTtlMs === undefined ? 0 : whole('markerTtlMs', input.markerTtlMs, 1),
      ticket: ticketArg(input.ticket),
    },
    restArgs: heldTriples(input.jobs),
  });
  return checkedTransition(call, (command, reply) => {
    const [codes, claimed, limited] = tuple(command, reply, reply, 2, 'the reply');
    const limitedMs = limited === undefined || limited === null ? 0 : decimal(command, reply, limited, 'the limit wait');
    return {
      completions: batchCompletions(decimals(command, reply, codes, 'the codes')),
      claimed: list(command, reply, claimed, 'the claimed').map((e) => fromFlat(command, reply, e, input.queue)),
      limitedMs,
    };
  });
}
