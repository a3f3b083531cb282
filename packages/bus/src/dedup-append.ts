import { InvalidArgumentError, execute, resolveValueLimit, transitions, type Connection, type EvtId } from '@echo/protocol/bus';
import { checked, mint, type AppendOptions, type Minted } from './append.js';
import { BatchAppendError, type BatchAppendResult } from './errors.js';
import { ID_FIELD, type StreamFields } from './fields.js';
import { streamKey } from './keys.js';
import { checkDedupAppendOptions, checkDedupBatchOptions } from './option-checks.js';
import { appendClock, appended } from './stream-hooks.js';
import { appendTraced, tracedAppend } from './stream-trace.js';

type DedupOutcome = transitions.DedupOutcome;

/** How long a publish message id is remembered by default: two minutes, as JetStream's window. */
export const DEFAULT_DEDUP_WINDOW_MS = 120_000;

/** The longest publish message id, in UTF-16 code units. */
export const MAX_MSG_ID = 1024;

/** The answer of an append that carries a message id. */
export interface AppendReceipt {
  /** The record's EVT id; for a duplicate, the id the message was first appended under. */
  readonly id: EvtId;
  /** True when the message id was appended within the window before, so nothing was written now. */
  readonly duplicate: boolean;
}

/** The window options of the deduplicating appends. */
export interface DedupWindowOptions {
  /**
   * How long a message id is remembered after its first append, by the server's clock: a second
   * append with it within this many ms is a duplicate. Default 120000 (two minutes). Give every
   * writer of a stream the same window.
   */
  readonly dedupWindowMs?: number;
}

/** Options of {@link append} with a message id. */
export interface DedupAppendOptions extends AppendOptions, DedupWindowOptions {
  /** The publish message id: a second append with it within the window writes nothing. */
  readonly msgId: string;
}

/** Options of {@link appendBatch} with message ids. */
export interface DedupBatchOptions extends AppendOptions, DedupWindowOptions {
  /** One message id per record, in order. */
  readonly msgIds: readonly string[];
}

/**
 * Checks a dedup window, before anything is sent.
 *
 * @throws InvalidArgumentError unless it is a whole number of ms >= 1.
 */
export function dedupWindowOf(value: number | undefined, argument = 'dedupWindowMs'): number {
  const ms = value ?? DEFAULT_DEDUP_WINDOW_MS;
  if (!Number.isSafeInteger(ms) || ms < 1) throw new InvalidArgumentError(argument, `must be an integer >= 1 (milliseconds), got ${String(value)}`);
  return ms;
}

function msgIdOf(value: unknown, argument: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_MSG_ID) {
    throw new InvalidArgumentError(argument, `must be a string of 1 to ${MAX_MSG_ID} characters, got ${JSON.stringify(value)}`);
  }
  return value;
}

function receiptOf(outcome: DedupOutcome, minted: Minted): AppendReceipt {
  return outcome.kind === 'duplicate' ? { id: outcome.first as EvtId, duplicate: true } : { id: minted.id, duplicate: false };
}

async function sendDeduped(
  conn: Connection,
  queue: string,
  name: string,
  windowMs: number,
  minted: readonly Minted[],
  flats: readonly (readonly string[])[],
  msgIds: readonly string[],
  extra: readonly string[],
): Promise<DedupOutcome[]> {
  const records = flats.map((flat, i) => {
    const m = minted[i] as Minted;
    return { msgId: msgIds[i] as string, xid: m.xid, fields: [ID_FIELD, m.id, ...flat, ...extra] };
  });
  const started = appendClock();
  const outcomes = await execute(conn, transitions.streamAppend({ queue, stream: name, windowMs, records }));
  const landed = minted.filter((_, i) => outcomes[i]?.kind === 'appended').map((m) => m.id);
  if (landed.length > 0) appended(queue, name, landed, started);
  return outcomes;
}

/**
 * Appends a record under a freshly minted EVT id unless its message id was appended within the
 * stream's dedup window (JetStream's `Nats-Msg-Id`): one script decides and writes, so two writers
 * racing on one id land it once.
 *
 * @returns the receipt: the new id, or the first append's id with `duplicate: true`.
 * @throws InvalidArgumentError for a bad message id, window or fields; UnknownOptionError for an unknown option.
 * @throws ValueTooLargeError when the entry is over `maxEntryBytes`; nothing is written.
 * @throws NonMonotonicError when another writer put a higher id on the stream first.
 */
export async function appendUnique(conn: Connection, queue: string, name: string, fields: StreamFields, options: DedupAppendOptions): Promise<AppendReceipt> {
  checkDedupAppendOptions(options);
  const msgId = msgIdOf(options.msgId, 'msgId');
  const windowMs = dedupWindowOf(options.dedupWindowMs);
  streamKey(queue, name);
  const carried = options.traceContext === true;
  const flat = checked(fields, carried, resolveValueLimit('maxEntryBytes', options.maxEntryBytes));
  const minted = mint(options.minter);
  const send = async (extra: readonly string[]): Promise<AppendReceipt> => {
    const [outcome] = await sendDeduped(conn, queue, name, windowMs, [minted], [flat], [msgId], extra);
    if (outcome === undefined) throw new InvalidArgumentError('reply', 'stream_append answered no outcome');
    if (outcome.kind === 'refused') throw outcome.error;
    return receiptOf(outcome, minted);
  };
  const idOf = (r: AppendReceipt): readonly string[] => (r.duplicate ? [] : [r.id]);
  return appendTraced() ? tracedAppend(queue, name, 1, carried, idOf, send) : send([]);
}

/**
 * Appends many records in one script, each under its own message id: those seen within the window
 * (earlier, or earlier in the same batch) are not written and answer the first append's id.
 *
 * @returns one receipt per record, in order.
 * @throws InvalidArgumentError for a bad message id, window or record, or `msgIds` not one per
 *   record; UnknownOptionError for an unknown option.
 * @throws ValueTooLargeError when any record is over `maxEntryBytes`; none of them is written.
 * @throws BatchAppendError when the server refused any record; it says which landed.
 */
export async function appendBatchUnique(
  conn: Connection,
  queue: string,
  name: string,
  records: readonly StreamFields[],
  options: DedupBatchOptions,
): Promise<AppendReceipt[]> {
  checkDedupBatchOptions(options);
  const ids: unknown = options.msgIds;
  if (!Array.isArray(ids) || ids.length !== records.length) {
    throw new InvalidArgumentError('msgIds', `must hold one message id per record (${records.length})`);
  }
  const msgIds = (ids as unknown[]).map((id, i) => msgIdOf(id, `msgIds[${i}]`));
  const windowMs = dedupWindowOf(options.dedupWindowMs);
  streamKey(queue, name);
  const carried = options.traceContext === true;
  const limit = resolveValueLimit('maxEntryBytes', options.maxEntryBytes);
  const flats = records.map((fields, i) => checked(fields, carried, limit, `records[${i}]`));
  if (flats.length === 0) return [];
  const minted = flats.map(() => mint(options.minter));
  const send = async (extra: readonly string[]): Promise<AppendReceipt[]> => {
    const outcomes = await sendDeduped(conn, queue, name, windowMs, minted, flats, msgIds, extra);
    if (outcomes.some((o) => o.kind === 'refused')) {
      throw new BatchAppendError(
        outcomes.map((o, i): BatchAppendResult => {
          const m = minted[i] as Minted;
          return o.kind === 'refused' ? { ok: false, id: m.id, error: o.error } : { ok: true, id: receiptOf(o, m).id };
        }),
      );
    }
    return outcomes.map((o, i) => receiptOf(o, minted[i] as Minted));
  };
  const idsOf = (rs: readonly AppendReceipt[]): readonly string[] => rs.filter((r) => !r.duplicate).map((r) => r.id);
  return appendTraced() ? tracedAppend(queue, name, flats.length, carried, idsOf, send) : send([]);
}
