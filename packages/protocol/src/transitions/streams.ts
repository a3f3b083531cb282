import { mapReplyError } from '../errors/registry.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { MalformedReplyError } from '../errors/wire.js';
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

/** What a consumer's handler said of one entry, as {@link streamSettle} takes it. */
export interface SettleEntry {
  /** `ack`: done; `retry`: deliver again (dead-lettered past `maxDeliveries`); `dead`: give up now. */
  readonly kind: 'ack' | 'retry' | 'dead';
  /** The entry's XADD id. */
  readonly xid: string;
  /** Its delivery count, the delivery being settled included. */
  readonly attempts: number;
  /** Its order key in an ordered group; omit (or `''`) for none. */
  readonly key?: string;
  /** For a retry: deliver again no sooner than this many ms from now (at most `minIdleMs`); omit for `minIdleMs`. */
  readonly delayMs?: number;
  /** For a retry or a failure: why, as the dead-letter record says it. */
  readonly reason?: string;
}

/** Input of {@link streamSettle}. */
export interface StreamSettleInput extends StreamScope {
  readonly group: string;
  readonly consumer: string;
  /** The min-idle time the group's consumers claim entries at. */
  readonly minIdleMs: number;
  /** 0: no limit. */
  readonly maxDeliveries: number;
  readonly entries: readonly SettleEntry[];
}

/** What {@link streamSettle} answers: how many entries went each way. */
export interface StreamSettleReply {
  readonly acked: number;
  readonly deadLettered: number;
  readonly retried: number;
}

const SETTLE_KINDS: ReadonlySet<string> = new Set(['ack', 'retry', 'dead']);

/**
 * `stream_settle` [TS]: settles a consumer's handled entries in one step: acks, retries (re-dated
 * by their delay without counting a delivery) and failures (moved to the dead-letter stream with
 * their reason and attempts, and acked). The max-deliveries rule is the script's: a retry that
 * would need a delivery past `maxDeliveries` is dead-lettered. An entry with an order key leaves
 * the order registry as it is acked or dead-lettered.
 *
 * @throws InvalidArgumentError for an empty list, an unknown kind, or a negative or fractional number.
 */
export function streamSettle(input: StreamSettleInput): Transition<StreamSettleReply> {
  if (input.entries.length === 0) throw new InvalidArgumentError('entries', 'must name at least one entry');
  const restArgs = input.entries.flatMap((e) => {
    if (!SETTLE_KINDS.has(e.kind)) throw new InvalidArgumentError('entries.kind', `must be ack, retry or dead, got ${JSON.stringify(e.kind)}`);
    return [e.kind, e.xid, e.key ?? '', String(whole('attempts', e.attempts, 0)), e.delayMs === undefined ? '' : String(whole('delayMs', e.delayMs, 0)), e.reason ?? ''];
  });
  const args = { group: input.group, consumer: input.consumer, min_idle: whole('minIdleMs', input.minIdleMs, 0), max_deliveries: whole('maxDeliveries', input.maxDeliveries, 0) };
  return checkedTransition(bind(scripts().stream_settle, { scope: { q: input.queue, stream: input.stream }, args, restArgs }), (command, reply) => {
    const [acked, dead, retried] = tuple(command, reply, reply, 3, 'the reply');
    return { acked: decimal(command, reply, acked, 'the acked count'), deadLettered: decimal(command, reply, dead, 'the dead-lettered count'), retried: decimal(command, reply, retried, 'the retried count') };
  });
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

/** Input of {@link streamAppendBatch}. */
export interface StreamAppendBatchInput extends StreamScope {
  /**
   * The records as the script reads them, one list for the whole batch: per record its XADD id, its
   * EVT id, its item count n, then its n `field value …` items (without the `id` field: the script
   * writes it first). One list, so a batch costs no array per record.
   */
  readonly records: readonly (string | number)[];
  /** How many records `records` holds. */
  readonly count: number;
  /** Items every record carries after its own (one producer's trace context); empty for none. */
  readonly extra: readonly string[];
}

/** A record of {@link streamAppendBatch} the server refused: its 0-based place in the call, and why. */
export interface AppendRefusal {
  readonly index: number;
  readonly error: Error;
}

/**
 * `stream_append_batch` [TS]: appends records in one script, each exactly as the spec's pipelined
 * `XADD key <xid> id <EVT id> <fields…> <extra…>` writes it (bus.md §2.2). Answers the records the
 * server refused (a non-monotonic id as `NonMonotonicError`), empty when every one landed; the
 * records around a refused one still go.
 *
 * @throws InvalidArgumentError for no records, or extra items that are not pairs.
 */
export function streamAppendBatch(input: StreamAppendBatchInput): Transition<AppendRefusal[]> {
  if (input.count < 1) throw new InvalidArgumentError('records', 'must hold at least one record');
  if (input.extra.length % 2 !== 0) throw new InvalidArgumentError('extra', 'must be field/value pairs');
  const restArgs = input.extra.length === 0 ? input.records : [...input.records, ...input.extra];
  return checkedTransition(bind(scripts().stream_append_batch, { scope: { q: input.queue, stream: input.stream }, args: { extra: input.extra.length }, restArgs }), (command, reply) => {
    const flat = list(command, reply, reply, 'the reply');
    const refused: AppendRefusal[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const place = decimal(command, reply, flat[i], 'a refused place');
      if (place < 1 || place > input.count) throw new MalformedReplyError(command, reply, `a refused place out of 1..${input.count}`);
      const error = new Error(String(flat[i + 1]));
      error.name = 'ReplyError';
      refused.push({ index: place - 1, error: mapReplyError(error) });
    }
    return refused;
  });
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
 * `stream_group_forget` [TS]: without `position`, drops a destroyed group's paused flag and its
 * order registry entries; with one (the group's new last-delivered id after a reset), moves an
 * ordered group's registration watermark there. Answers how many registry members went.
 */
export function streamGroupForget(input: StreamScope & { readonly group: string; readonly position?: string }): Transition<number> {
  const args = { group: input.group, position: input.position ?? '' };
  return transition(bind(scripts().stream_group_forget, { scope: { q: input.queue, stream: input.stream }, args }), int);
}
