import { execute, transitions, writes, type Connection } from '@echo/protocol/bus';
import { settledEntries } from './stream-hooks.js';

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
  /** Redelivery delays by delivery; empty: a plain retry waits `minIdleMs`. */
  readonly backoff: readonly number[];
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
function backoffDelay(backoff: readonly number[], attempts: number): number | undefined {
  if (backoff.length === 0) return undefined;
  return backoff[Math.min(Math.max(attempts, 1), backoff.length) - 1];
}

/**
 * Sends what a batch of outcomes needs, all at once and without waiting between commands, so the
 * caller can put its next read right behind them on the same socket: one `XACK` for every ack, one
 * `stream_dead_letter` for every entry given up on, and one `stream_nack` per retry delay (it
 * re-dates the delivery without counting one; a plain retry takes its delay from the backoff list when
 * there is one). Without a delay a retry sends nothing: the entry stays
 * pending and comes back once idle for `minIdleMs`.
 */
export function sendSettlements(conn: Connection, to: SettleTarget, items: readonly Settlement[]): Promise<SettleCounts> {
  const acks: string[] = [];
  const dead: { xid: string; attempts: number; reason: string }[] = [];
  // In an ordered group, the entries done (acked or dead-lettered) and their keys.
  const done: { xid: string; key: string }[] = [];
  const delayed = new Map<number, string[]>();
  let retried = 0;
  for (const { xid, attempts, outcome, key } of items) {
    if (outcome.kind === 'ack') {
      acks.push(xid);
      if (to.ordered) done.push({ xid, key: key ?? '' });
    } else if (outcome.kind === 'dead' || (to.maxDeliveries > 0 && attempts >= to.maxDeliveries)) {
      dead.push({ xid, attempts, reason: outcome.reason });
      if (to.ordered && key !== undefined && key !== '') done.push({ xid, key });
    } else {
      retried++;
      const delayMs = outcome.delayMs ?? backoffDelay(to.backoff, attempts);
      if (delayMs !== undefined) {
        // One stream_nack per distinct delay: it re-dates the delivery so it is claimable `delay` from now.
        const delay = Math.min(delayMs, to.minIdleMs);
        const list = delayed.get(delay) ?? [];
        list.push(xid);
        delayed.set(delay, list);
      }
    }
  }
  const sends: Promise<unknown>[] = [];
  if (acks.length > 0 && !to.ordered) sends.push(writes.sendWrite(conn, writes.xack({ key: to.key, group: to.group, ids: acks })));
  if (dead.length > 0) {
    sends.push(execute(conn, transitions.streamDeadLetter({ queue: to.queue, stream: to.stream, group: to.group, consumer: to.consumer, entries: dead })));
  }
  // After the dead letters, so a dead-lettered entry leaves the registry once it is acked there.
  if (done.length > 0) sends.push(execute(conn, transitions.streamOrderDone({ queue: to.queue, stream: to.stream, group: to.group, entries: done })));
  for (const [delayMs, xids] of delayed) {
    sends.push(execute(conn, transitions.streamNack({ queue: to.queue, stream: to.stream, group: to.group, consumer: to.consumer, xids, delayMs, minIdleMs: to.minIdleMs })));
  }
  return Promise.all(sends).then(() => {
    const counts = { acked: acks.length, deadLettered: dead.length, retried };
    settledEntries(to, counts);
    return counts;
  });
}
