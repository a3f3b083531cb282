import { InvalidArgumentError, execute, transitions, type EvtId } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { BatchAppendError, type BatchAppendResult } from '../core/errors.js';
import { ID_FIELD, type StreamFields } from '../record/fields.js';
import { appendClock, appended } from '../telemetry/hooks.js';
import { appendTraced, tracedAppend } from '../telemetry/trace.js';
import { checked, mint, type Minted } from './append.js';

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

/** Appends the records whose message id is new within the window, in one script; answers one outcome each. */
async function sendDeduped(ctx: StreamContext, minted: readonly Minted[], flats: readonly (readonly string[])[], msgIds: readonly string[], extra: readonly string[]): Promise<DedupOutcome[]> {
  const records = flats.map((flat, i) => {
    const m = minted[i] as Minted;
    return { msgId: msgIds[i] as string, xid: m.xid, fields: [ID_FIELD, m.id, ...flat, ...extra] };
  });
  const started = appendClock();
  const outcomes = await execute(ctx.conn, transitions.streamAppend({ queue: ctx.queue, stream: ctx.name, windowMs: ctx.dedupWindowMs, records }));
  const landed = minted.filter((_, i) => outcomes[i]?.kind === 'appended').map((m) => m.id);
  if (landed.length > 0) appended(ctx.queue, ctx.name, landed, started);
  return outcomes;
}

/**
 * Appends a record unless its message id was appended within the stream's dedup window (script
 * `stream_append` [TS]), and answers `{ id, duplicate }`: the new id, or the first append's.
 *
 * @throws InvalidArgumentError for a bad message id or fields; ValueTooLargeError over the entry cap.
 */
export async function appendUnique(ctx: StreamContext, fields: StreamFields, msgId: unknown): Promise<AppendReceipt> {
  const id = msgIdOf(msgId, 'msgId');
  const flat = checked(ctx, fields);
  const minted = mint(ctx.minter);
  const send = async (extra: readonly string[]): Promise<AppendReceipt> => {
    const [outcome] = await sendDeduped(ctx, [minted], [flat], [id], extra);
    if (outcome === undefined) throw new InvalidArgumentError('reply', 'stream_append answered no outcome');
    if (outcome.kind === 'refused') throw outcome.error;
    return receiptOf(outcome, minted);
  };
  const idOf = (r: AppendReceipt): readonly string[] => (r.duplicate ? [] : [r.id]);
  return appendTraced() ? tracedAppend(ctx.queue, ctx.name, 1, ctx.traceContext, idOf, send) : send([]);
}

/**
 * Appends many records in one script, one message id each: those seen within the dedup window
 * write nothing. Answers one receipt per record.
 *
 * @throws InvalidArgumentError unless there is one good message id per record, or for bad fields.
 * @throws BatchAppendError when a record was refused; it says which landed.
 */
export async function appendBatchUnique(ctx: StreamContext, records: readonly StreamFields[], msgIds: unknown): Promise<AppendReceipt[]> {
  if (!Array.isArray(msgIds) || msgIds.length !== records.length) {
    throw new InvalidArgumentError('msgIds', `must hold one message id per record (${records.length})`);
  }
  const ids = (msgIds as unknown[]).map((id, i) => msgIdOf(id, `msgIds[${i}]`));
  const flats = records.map((fields, i) => checked(ctx, fields, `records[${i}]`));
  if (flats.length === 0) return [];
  const minted = flats.map(() => mint(ctx.minter));
  const send = async (extra: readonly string[]): Promise<AppendReceipt[]> => {
    const outcomes = await sendDeduped(ctx, minted, flats, ids, extra);
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
  return appendTraced() ? tracedAppend(ctx.queue, ctx.name, flats.length, ctx.traceContext, idsOf, send) : send([]);
}
