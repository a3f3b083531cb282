import { mapReplyError } from '../errors/registry.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { checkedTransition, transition, type Transition } from './transition.js';
import { int, whole } from './values.js';
import { decimal, list, text, texts, tuple } from '../reply-shapes.js';

/** Names a stream of a queue. */
interface StreamScope {
  readonly queue: string;
  readonly stream: string;
}

/** `stream_drop` [TS]: deletes a stream log with its consumer groups and its archive watermark. */
export function streamDrop(input: StreamScope): Transition<boolean> {
  return transition(bind(scripts().stream_drop, { scope: { q: input.queue, stream: input.stream } }), (reply) => int(reply) === 1);
}

/** One entry handed over by {@link streamClaim}, as the server holds it. */
export interface ClaimedEntry {
  /** The entry's XADD id. */
  readonly xid: string;
  /** Its delivery count, this delivery included. */
  readonly attempts: number;
  /** Its `field value …` list. */
  readonly pairs: readonly unknown[];
}

/** What {@link streamClaim} answers. */
export interface StreamClaimReply {
  /** Where the next call resumes; `0-0` once the walk reached the end. */
  readonly cursor: string;
  readonly entries: readonly ClaimedEntry[];
  /** Entries moved to the dead-letter stream instead, being past `maxDeliveries`. */
  readonly deadLettered: number;
}

/** Input of {@link streamClaim}. */
export interface StreamClaimInput extends StreamScope {
  readonly group: string;
  readonly consumer: string;
  /** `self`: this consumer's own pending entries; `idle`: anyone's entries idle for `minIdleMs`. */
  readonly mode: 'self' | 'idle';
  /** `0-0` to start a walk, else the cursor the previous call answered. */
  readonly cursor: string;
  readonly count: number;
  readonly minIdleMs: number;
  /** 0: no limit. */
  readonly maxDeliveries: number;
}

function claimReply(command: string, reply: unknown): StreamClaimReply {
  const [cursor, rows, dead] = tuple(command, reply, reply, 3, 'the reply');
  const entries = list(command, reply, rows, 'the entries').map((row) => {
    const [xid, attempts, pairs] = tuple(command, reply, row, 3, 'an entry');
    return { xid: text(command, reply, xid, 'an entry id'), attempts: decimal(command, reply, attempts, 'the deliveries'), pairs: list(command, reply, pairs, 'the fields') };
  });
  return { cursor: text(command, reply, cursor, 'the cursor'), entries, deadLettered: decimal(command, reply, dead, 'the dead-lettered count') };
}

/**
 * `stream_claim` [TS]: hands a group consumer entries delivered before, each with its delivery count
 * read in the same step (no XPENDING per entry on the wire); an entry past `maxDeliveries` is
 * dead-lettered and acked instead.
 */
export function streamClaim(input: StreamClaimInput): Transition<StreamClaimReply> {
  const args = {
    group: input.group,
    consumer: input.consumer,
    mode: input.mode,
    cursor: input.cursor,
    count: whole('count', input.count, 1),
    min_idle: whole('minIdleMs', input.minIdleMs, 0),
    max_deliveries: whole('maxDeliveries', input.maxDeliveries, 0),
  };
  return checkedTransition(bind(scripts().stream_claim, { scope: { q: input.queue, stream: input.stream }, args }), claimReply);
}

/** One entry a consumer gives up on. */
export interface DeadLetterMove {
  readonly xid: string;
  readonly attempts: number;
  readonly reason: string;
}

/**
 * `stream_dead_letter` [TS]: moves entries of `group` to the stream's dead-letter stream with their
 * reason, attempts and original id, and acks them, atomically. Answers the records written.
 *
 * @throws InvalidArgumentError for an empty list.
 */
export function streamDeadLetter(input: StreamScope & { readonly group: string; readonly consumer: string; readonly entries: readonly DeadLetterMove[] }): Transition<number> {
  if (input.entries.length === 0) throw new InvalidArgumentError('entries', 'must name at least one entry');
  const restArgs = input.entries.flatMap((e) => [e.xid, String(whole('attempts', e.attempts, 0)), e.reason]);
  return transition(
    bind(scripts().stream_dead_letter, { scope: { q: input.queue, stream: input.stream }, args: { group: input.group, consumer: input.consumer }, restArgs }),
    int,
  );
}

/** Input of {@link streamNack}. */
export interface StreamNackInput extends StreamScope {
  readonly group: string;
  readonly consumer: string;
  /** The entries to put back. */
  readonly xids: readonly string[];
  /** Redeliver no sooner than this many ms from now (at most `minIdleMs`: the claim's idle floor). */
  readonly delayMs: number;
  /** The min-idle time the group's consumers reclaim entries at. */
  readonly minIdleMs: number;
}

/**
 * `stream_nack` [TS]: puts pending entries back for redelivery no sooner than `delayMs` from now,
 * without counting a delivery: their last delivery is re-dated `minIdleMs - delayMs` ago (never
 * less than 0), so a consumer reclaiming at `minIdleMs` takes them once the delay has passed.
 * Answers how many were re-dated.
 *
 * @throws InvalidArgumentError for an empty list or a negative or fractional time.
 */
export function streamNack(input: StreamNackInput): Transition<number> {
  if (input.xids.length === 0) throw new InvalidArgumentError('xids', 'must name at least one entry');
  const idle = Math.max(0, whole('minIdleMs', input.minIdleMs, 0) - whole('delayMs', input.delayMs, 0));
  return transition(
    bind(scripts().stream_nack, { scope: { q: input.queue, stream: input.stream }, args: { group: input.group, consumer: input.consumer, idle_ms: idle }, restArgs: input.xids }),
    int,
  );
}

/** What {@link streamRedrive} answers. */
export interface StreamRedriveReply {
  readonly redriven: number;
  /** Dead-letter record ids left in place: their entry was trimmed away or their group is gone. */
  readonly left: readonly string[];
}

/**
 * `stream_redrive` [TS]: makes the entries of dead-letter records pending again for their group
 * (delivery count reset, claimable at once) and deletes the records, atomically.
 *
 * @throws InvalidArgumentError for an empty list.
 */
export function streamRedrive(input: StreamScope & { readonly records: readonly string[] }): Transition<StreamRedriveReply> {
  if (input.records.length === 0) throw new InvalidArgumentError('records', 'must name at least one dead-letter record');
  return checkedTransition(bind(scripts().stream_redrive, { scope: { q: input.queue, stream: input.stream }, restArgs: input.records }), (command, reply) => {
    const [redriven, left] = tuple(command, reply, reply, 2, 'the reply');
    return { redriven: decimal(command, reply, redriven, 'the redriven count'), left: texts(command, reply, left, 'the records left') };
  });
}

/** One record of {@link streamAppend}: the message id it is deduplicated by, its XADD id and fields. */
export interface DedupRecord {
  /** The publish message id; a second record with it inside the window is a duplicate. */
  readonly msgId: string;
  /** The record's XADD id. */
  readonly xid: string;
  /** `id <EVT> field value …`: the `id` field first. */
  readonly fields: readonly string[];
}

/** What became of one record of {@link streamAppend}. */
export type DedupOutcome =
  | { readonly kind: 'appended' }
  | { readonly kind: 'duplicate'; readonly first: string }
  | { readonly kind: 'refused'; readonly error: Error };

/**
 * `stream_append` [TS]: appends records under a publish deduplication window (JetStream's message-id
 * window): a record whose message id was appended within `windowMs` is not written and answers the
 * EVT id it was first appended under. A refused XADD (a non-monotonic id) is answered as its typed
 * error, and the other records still go.
 *
 * @throws InvalidArgumentError for no records, a window below 1 ms or a record whose fields do not
 *   start with `id`.
 */
export function streamAppend(input: StreamScope & { readonly windowMs: number; readonly records: readonly DedupRecord[] }): Transition<DedupOutcome[]> {
  if (input.records.length === 0) throw new InvalidArgumentError('records', 'must hold at least one record');
  const restArgs: string[] = [];
  for (const r of input.records) {
    if (r.fields[0] !== 'id' || r.fields.length % 2 !== 0) throw new InvalidArgumentError('fields', 'must be field/value pairs starting with the id field');
    restArgs.push(r.msgId, r.xid, String(r.fields.length), ...r.fields);
  }
  return checkedTransition(
    bind(scripts().stream_append, { scope: { q: input.queue, stream: input.stream }, args: { window_ms: whole('windowMs', input.windowMs, 1) }, restArgs }),
    (command, reply) =>
      list(command, reply, reply, 'the reply').map((outcome): DedupOutcome => {
        const [kind, detail] = tuple(command, reply, outcome, 1, 'an outcome');
        if (kind === 'ok') return { kind: 'appended' };
        if (kind === 'dup') return { kind: 'duplicate', first: String(detail) };
        const error = new Error(String(detail));
        error.name = 'ReplyError';
        return { kind: 'refused', error: mapReplyError(error) };
      }),
  );
}

/**
 * `stream_touch` [TS]: resets the idle time of entries `consumer` still holds, without counting a
 * delivery (JetStream's in-progress ack), so no peer's idle claim takes them while they are worked
 * on. Answers how many were still held.
 *
 * @throws InvalidArgumentError for an empty list.
 */
export function streamTouch(input: StreamScope & { readonly group: string; readonly consumer: string; readonly xids: readonly string[] }): Transition<number> {
  if (input.xids.length === 0) throw new InvalidArgumentError('xids', 'must name at least one entry');
  return transition(bind(scripts().stream_touch, { scope: { q: input.queue, stream: input.stream }, args: { group: input.group, consumer: input.consumer }, restArgs: input.xids }), int);
}

/** One entry of an ordered group: its XADD id and the value of its order field. */
export interface OrderedEntry {
  readonly xid: string;
  readonly key: string;
}

/** What {@link streamOrderAdmit} answers for one entry. */
export type OrderVerdict =
  /** It is the head of its key: it may run now. */
  | { readonly kind: 'head' }
  /** It waits for `after`, the entry before it of the same key, still pending in the group. */
  | { readonly kind: 'wait'; readonly after: string }
  /** This consumer no longer holds it (acked, or claimed by a peer). */
  | { readonly kind: 'gone' };

/** Input of {@link streamOrderAdmit}. */
export interface StreamOrderAdmitInput extends StreamScope {
  readonly group: string;
  readonly consumer: string;
  /** The field whose value orders the entries. */
  readonly orderBy: string;
  /** The newest id of the read the entries come from, to register everything up to it; omit for a claim. */
  readonly last?: string;
  readonly entries: readonly OrderedEntry[];
}

/**
 * `stream_order_admit` [TS]: registers entries of an ordered group under their keys, in stream order
 * whoever read them, and answers for each whether it is the head of its key or what it waits for.
 */
export function streamOrderAdmit(input: StreamOrderAdmitInput): Transition<OrderVerdict[]> {
  const args = { group: input.group, consumer: input.consumer, order_by: input.orderBy, last: input.last ?? '' };
  return checkedTransition(
    bind(scripts().stream_order_admit, { scope: { q: input.queue, stream: input.stream }, args, restArgs: input.entries.flatMap((e) => [e.xid, e.key]) }),
    (command, reply) => texts(command, reply, reply, 'the reply').map((r): OrderVerdict => (r === '' ? { kind: 'head' } : r === '-' ? { kind: 'gone' } : { kind: 'wait', after: r })),
  );
}

/**
 * `stream_order_done` [TS]: acks entries of an ordered group and takes them out of the order
 * registry in one step (a `key` of `''` is only acked). Answers how many this call acked.
 *
 * @throws InvalidArgumentError for an empty list.
 */
export function streamOrderDone(input: StreamScope & { readonly group: string; readonly entries: readonly OrderedEntry[] }): Transition<number> {
  if (input.entries.length === 0) throw new InvalidArgumentError('entries', 'must name at least one entry');
  return transition(
    bind(scripts().stream_order_done, { scope: { q: input.queue, stream: input.stream }, args: { group: input.group }, restArgs: input.entries.flatMap((e) => [e.xid, e.key]) }),
    int,
  );
}

/**
 * `stream_group_forget` [TS]: without `position`, drops a destroyed group's paused flag and its
 * order registry entries; with one (the group's new last-delivered id after a reset), moves an
 * ordered group's registration watermark there. Answers how many registry members went.
 */
export function streamGroupForget(input: StreamScope & { readonly group: string; readonly position?: string }): Transition<number> {
  const args = { group: input.group, position: input.position ?? '' };
  return transition(bind(scripts().stream_group_forget, { scope: { q: input.queue, stream: input.stream }, args }), int);
}
