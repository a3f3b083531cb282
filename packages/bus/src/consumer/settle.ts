import { backoffDelay, execute, transitions, writes, type Backoff, type Connection } from '@echo/protocol/bus';
import { settledEntries } from '../telemetry/hooks.js';

/** What became of one handled entry. */
export type Outcome =
  | { readonly kind: 'ack' }
  | { readonly kind: 'retry'; readonly reason: string; readonly delayMs?: number }
  | { readonly kind: 'dead'; readonly reason: string };

/** One entry to settle: its XADD id, its delivery count and its outcome. */
export interface Settlement {
  readonly xid: string;
  readonly attempts: number;
  readonly outcome: Outcome;
  /** Its order key, in an ordered group ('' when it has none). */
  readonly key?: string;
}

/** Where settlements go. */
export interface SettleTarget {
  readonly queue: string;
  readonly stream: string;
  readonly key: string;
  readonly group: string;
  readonly consumer: string;
  readonly minIdleMs: number;
  /** 0: no limit. */
  readonly maxDeliveries: number;
  /** Redelivery delays by delivery, or a curve; an empty list: a plain retry waits `minIdleMs`. */
  readonly backoff: readonly number[] | Backoff;
  /** True in an ordered group: an entry done leaves the order registry as it is acked. */
  readonly ordered: boolean;
}

/** How many entries a settlement acked, dead-lettered and left for a retry. */
export interface SettleCounts {
  acked: number;
  deadLettered: number;
  retried: number;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The one ack outcome, shared: an ack carries nothing of its own, so none is built per entry. */
const ACK: Outcome = Object.freeze({ kind: 'ack' });

/** The outcome of a handler's throw. */
export function thrown(error: unknown): Outcome {
  return { kind: 'retry', reason: reasonOf(error) };
}

/**
 * The outcome a verdict (see `Verdict`) asks for; anything that is not a verdict is a retry, reported by the
 * caller, so a typo in a handler never acks an entry.
 */
export function outcomeOf(verdict: unknown): Outcome | undefined {
  if (verdict === undefined || verdict === 'ack') return ACK;
  if (verdict === 'retry') return { kind: 'retry', reason: 'retry' };
  if (typeof verdict === 'object' && verdict !== null) {
    const v = verdict as Partial<Record<'retryInMs' | 'deadLetter', unknown>>;
    if (typeof v.retryInMs === 'number' && Number.isSafeInteger(v.retryInMs) && v.retryInMs >= 0) {
      return { kind: 'retry', reason: 'retry', delayMs: v.retryInMs };
    }
    if (typeof v.deadLetter === 'string') return { kind: 'dead', reason: v.deadLetter };
  }
  return undefined;
}

/** The wait before the redelivery that follows delivery `attempts`; undefined without a backoff. */
function redeliveryDelay(backoff: readonly number[] | Backoff, attempts: number): number | undefined {
  const delivery = Math.max(attempts, 1);
  if (!Array.isArray(backoff)) return backoffDelay(backoff as Backoff, delivery);
  if (backoff.length === 0) return undefined;
  return backoff[Math.min(delivery, backoff.length) - 1] as number;
}

/** The settlement of a read whose entries were all acked, in a group without order: one `XACK`. */
function sendAcks(conn: Connection, to: SettleTarget, xids: readonly string[]): Promise<SettleCounts> {
  return writes.sendWrite(conn, writes.xack({ key: to.key, group: to.group, ids: xids })).then(() => ({ acked: xids.length, deadLettered: 0, retried: 0 }));
}

/** One entry as the settle script takes it: a retry carries its delay, from its verdict or the backoff. */
function settleEntry(to: SettleTarget, { xid, attempts, outcome, key }: Settlement): transitions.SettleEntry {
  const keyed = key === undefined || key === '' ? {} : { key };
  if (outcome.kind === 'ack') return { kind: 'ack', xid, attempts, ...keyed };
  if (outcome.kind === 'dead') return { kind: 'dead', xid, attempts, reason: outcome.reason, ...keyed };
  const delayMs = outcome.delayMs ?? redeliveryDelay(to.backoff, attempts);
  return { kind: 'retry', xid, attempts, reason: outcome.reason, ...keyed, ...(delayMs === undefined ? {} : { delayMs: Math.min(delayMs, to.minIdleMs) }) };
}

/**
 * The settlement of a read whose entries were all acked, in a group without order, from their ids
 * alone: one `XACK`, no settlement per entry.
 */
export function sendAckIds(conn: Connection, to: SettleTarget, xids: readonly string[]): Promise<SettleCounts> {
  return sendAcks(conn, to, xids).then((counts) => {
    settledEntries(to, counts);
    return counts;
  });
}

/**
 * Sends what a batch of outcomes needs without waiting for it, so the caller can put its next read
 * right behind it on the same socket. A read whose entries were all acked, in a group without
 * order, is one `XACK`; anything else is one `stream_settle`, which acks, re-dates retries by their
 * delay (from the verdict, else the backoff list or curve; none: the entry comes back once idle for
 * `minIdleMs`), dead-letters failures and applies the max-deliveries rule itself.
 */
export function sendSettlements(conn: Connection, to: SettleTarget, items: readonly Settlement[]): Promise<SettleCounts> {
  const plain = !to.ordered && items.every((item) => item.outcome.kind === 'ack');
  const sent = plain
    ? sendAcks(conn, to, items.map((item) => item.xid))
    : execute(
        conn,
        transitions.streamSettle({
          queue: to.queue,
          stream: to.stream,
          group: to.group,
          consumer: to.consumer,
          minIdleMs: to.minIdleMs,
          maxDeliveries: to.maxDeliveries,
          entries: items.map((item) => settleEntry(to, item)),
        }),
      );
  return sent.then((counts) => {
    settledEntries(to, counts);
    return counts;
  });
}
