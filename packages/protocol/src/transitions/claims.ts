import type { BrandedId, JobId } from '../ids/branded.js';
import { scripts } from '../scripts/catalog.js';
import type { Script } from '../scripts/script.js';
import { bind } from './bind.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { decimal, list, optionalText, text, tuple } from '../reply-shapes.js';
import { checkedTransition, type Transition } from './transition.js';
import { flowLink, readJobOptions, whole, type FlowLink, type JobOptionFields } from './values.js';

/** A job a claim leased: its raw payload, its token and where it came from. */
export interface ClaimedRow {
  readonly id: JobId;
  /** The payload bytes as stored; decoding is the pillar's concern. */
  readonly payload: string;
  /** The attempt number minted by this claim; also the fencing token. */
  readonly attempts: number;
  /** The lane the job was claimed from (lane claims only). */
  readonly group: BrandedId | undefined;
  /** Set when the job is a flow child (flat claims only: lanes carry no flows). */
  readonly parent: FlowLink | undefined;
  /** The per-job options the row carries [TS]; empty when it carries none. */
  readonly options: JobOptionFields;
}

/** What every claim takes. */
export interface ClaimInput {
  readonly queue: string;
  /** Lease length in ms, from the server's now. */
  readonly leaseMs: number;
  /**
   * Also write each claimed job's worker-presence marker `job:<id>:lock` (holding the token) for
   * this many ms, in the same script [TS].
   */
  readonly markerTtlMs?: number;
  /**
   * A name this claim leaves on each row it leases [TS] (`claim_ticket`, in the same write as the
   * token), so that when its reply is cut off {@link recoverClaims} finds what it leased. Unique per
   * call: 1-64 characters of `A-Z a-z 0-9 . _ -`.
   */
  readonly ticket?: string;
}

const TICKET = /^[A-Za-z0-9._-]{1,64}$/;

/** The checked ticket of a claim, or `''` for none. */
export function ticketArg(ticket: string | undefined): string {
  if (ticket === undefined) return '';
  if (typeof ticket !== 'string' || !TICKET.test(ticket)) throw new InvalidArgumentError('ticket', 'is not 1-64 characters of A-Z a-z 0-9 . _ -');
  return ticket;
}

function markerArg(input: ClaimInput): number {
  return input.markerTtlMs === undefined ? 0 : whole('markerTtlMs', input.markerTtlMs, 1);
}

/** The trailing values of a claim: the marker TTL, then the ticket; each only when needed. */
function markerArgs(input: ClaimInput): (number | string)[] {
  if (input.ticket !== undefined) return [markerArg(input), ticketArg(input.ticket)];
  return input.markerTtlMs === undefined ? [] : [markerArg(input)];
}

/** A flow-link field of a claim entry: text, or absent (a script's nil: `null`, or `false` under RESP3). */
function linkField(command: string, reply: unknown, value: unknown, what: string): string | undefined {
  return value === false ? undefined : optionalText(command, reply, value, what);
}

/**
 * Reads a flat claim entry of `queue` (a part of `command`'s `reply`) into a row, checking its
 * shape: id, payload, attempts, the flow link fields, then the [TS] per-job option fields and trace
 * context (an older script answers only the first six; readJobOptions keeps only well-formed options).
 */
export function fromFlat(command: string, reply: unknown, entry: unknown, queue: string): ClaimedRow {
  const e = tuple(command, reply, entry, 6, 'a claim entry');
  const link = flowLink(linkField(command, reply, e[3], 'the parent'), linkField(command, reply, e[4], 'the parent queue'), linkField(command, reply, e[5], 'the parent policy'), queue);
  return {
    id: text(command, reply, e[0], 'the id') as JobId,
    payload: text(command, reply, e[1], 'the payload'),
    attempts: decimal(command, reply, e[2], 'the attempts'),
    group: undefined,
    parent: link,
    options: readJobOptions(e[6], e[7], e[8], e[9], e[10], e[11]),
  };
}

/** Reads a lane claim entry: id, payload, attempts, group, then the per-job options. */
function fromLane(command: string, reply: unknown, entry: unknown): ClaimedRow {
  const e = tuple(command, reply, entry, 4, 'a lane claim entry');
  return {
    id: text(command, reply, e[0], 'the id') as JobId,
    payload: text(command, reply, e[1], 'the payload'),
    attempts: decimal(command, reply, e[2], 'the attempts'),
    group: text(command, reply, e[3], 'the group') as BrandedId,
    parent: undefined,
    options: readJobOptions(e[4], e[5], e[6], e[7], e[8], e[9]),
  };
}

/** Reads one claim entry, a part of `command`'s `reply`. */
type EntryReader = (command: string, reply: unknown, entry: unknown) => ClaimedRow;

/** A claim's reply: an entry, or the empty list when nothing was claimable. */
function oneOrNone(command: string, reply: unknown, read: EntryReader): ClaimedRow | undefined {
  return list(command, reply, reply, 'the reply').length === 0 ? undefined : read(command, reply, reply);
}

/** A reply of many claim entries, each read by `read`. */
function entries(command: string, reply: unknown, read: EntryReader): ClaimedRow[] {
  return list(command, reply, reply, 'the reply').map((e) => read(command, reply, e));
}

function leaseCall(script: Script, input: ClaimInput, args: Readonly<Record<string, number>> = {}) {
  return bind(script, {
    scope: { q: input.queue },
    args: { lease_ms: whole('leaseMs', input.leaseMs, 1), ...args },
    restArgs: markerArgs(input),
  });
}

/** `claim`: leases the oldest pending job, or answers `undefined` (queue.md §3.1). */
export function claim(input: ClaimInput): Transition<ClaimedRow | undefined> {
  return checkedTransition(leaseCall(scripts().claim, input), (command, reply) => oneOrNone(command, reply, (c, r, e) => fromFlat(c, r, e, input.queue)));
}

/** `bclaim`: leases up to `size` oldest pending jobs under one deadline (queue.md §7). */
export function claimBatch(input: ClaimInput & { readonly size: number }): Transition<ClaimedRow[]> {
  const call = leaseCall(scripts().bclaim, input, { size: whole('size', input.size, 1) });
  return checkedTransition(call, (command, reply) => entries(command, reply, (c, r, e) => fromFlat(c, r, e, input.queue)));
}

/** `gclaim`: rotates the ring one step and leases one job from that lane (queue.md §5.2). */
export function laneClaim(input: ClaimInput): Transition<ClaimedRow | undefined> {
  return checkedTransition(leaseCall(scripts().gclaim, input), (command, reply) => oneOrNone(command, reply, fromLane));
}

/** `gwclaim`: rotates once and leases as many jobs from that lane as its weight allows (queue.md §5.5). */
export function laneWeightedClaim(input: ClaimInput): Transition<ClaimedRow[]> {
  return checkedTransition(leaseCall(scripts().gwclaim, input), (command, reply) => entries(command, reply, fromLane));
}

/**
 * `gbclaim`: rotates once and leases the whole claimable depth of that lane, up to its limit
 * (queue.md §7), and [TS] up to `size` jobs when given.
 */
export function laneBatchClaim(input: ClaimInput & { readonly size?: number }): Transition<ClaimedRow[]> {
  let call = leaseCall(scripts().gbclaim, input);
  if (input.size !== undefined || input.ticket !== undefined) {
    // The size rides after the marker slot, which then reads 0 (no marker) when none was asked for,
    // and the ticket after the size ('' for the whole depth).
    const size = input.size === undefined ? '' : whole('size', input.size, 1);
    const tail = input.ticket === undefined ? [] : [ticketArg(input.ticket)];
    call = { ...call, args: [call.args[0] as number, markerArg(input), size, ...tail] };
  }
  return checkedTransition(call, (command, reply) => entries(command, reply, fromLane));
}

/** A job {@link recoverClaims} found: the claimed row, and how long its lease has left. */
export interface RecoveredClaim extends ClaimedRow {
  /** Ms the lease had left when the server answered. */
  readonly leftMs: number;
}

/** Input of {@link recoverClaims}. */
export interface RecoverClaimsInput {
  readonly queue: string;
  /** The ticket the lost claim carried. */
  readonly ticket: string;
  /** Ms since the lost claim was sent, measured after it failed (an upper bound). */
  readonly sinceMs: number;
  /** The lease the lost claim asked for, in ms. */
  readonly leaseMs: number;
}

/**
 * `claim_recover` [TS]: the jobs a claim carrying `ticket` leased and that are still active under
 * the token it minted, for a worker whose claim reply was cut off (a dropped link, a master killed
 * after the script ran). Changes nothing; a job re-claimed or settled since is not answered.
 */
export function recoverClaims(input: RecoverClaimsInput): Transition<RecoveredClaim[]> {
  const call = bind(scripts().claim_recover, {
    scope: { q: input.queue },
    args: { ticket: ticketArg(input.ticket), since_ms: whole('sinceMs', input.sinceMs, 0), lease_ms: whole('leaseMs', input.leaseMs, 1) },
  });
  return checkedTransition(call, (command, reply) =>
    list(command, reply, reply, 'the reply').map((entry) => {
      const row = fromFlat(command, reply, entry, input.queue);
      const e = tuple(command, reply, entry, 14, 'a recovered claim');
      const group = linkField(command, reply, e[12], 'the group');
      return { ...row, group: group as BrandedId | undefined, parent: group === undefined ? row.parent : undefined, leftMs: decimal(command, reply, e[13], 'the lease left') };
    }),
  );
}
