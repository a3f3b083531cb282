import { IdMinter, mintIdParts, resolveValueLimit, writes, type Connection, type EvtId } from '@echo/protocol/bus';
import { checkEntrySize } from './entry-size.js';
import { BatchAppendError, type BatchAppendResult } from './errors.js';
import { flattenFields, type StreamFields } from './fields.js';
import { streamKey } from './keys.js';
import { checkAppendIdOptions, checkAppendOptions } from './option-checks.js';
import { appendClock, appended } from './stream-hooks.js';
import { appendTraced, tracedAppend } from './stream-trace.js';
import { refuseTraceFields, type TraceContextOption } from './trace-fields.js';
import { parseEvtId, xaddId, xaddIdOf } from './xadd-id.js';

/**
 * Where appended records get their ids. `IdMinter` from `@echo/protocol` fits as is; inject one with
 * its own clock to mint at chosen instants, or with a configured node.
 */
export interface EvtMinter {
  mint(namespace: 'EVT'): EvtId;
}

/** Options of {@link appendId}. */
export interface AppendIdOptions extends TraceContextOption {
  /** The byte cap on one entry: field names and values, UTF-8. Default 1 MiB; `Infinity` for none. */
  readonly maxEntryBytes?: number;
}

/** Options shared by the minting appends. */
export interface AppendOptions extends AppendIdOptions {
  /** Mints the record ids. Default: the process-wide minter behind `mintId`. */
  readonly minter?: EvtMinter;
}

/** A freshly minted record id and its XADD id. */
export interface Minted {
  readonly id: EvtId;
  readonly xid: string;
}

export function mint(minter: EvtMinter | undefined): Minted {
  // Our own minters answer the snowflake's fields beside the id: the XADD id needs no decode.
  if (minter === undefined) {
    const minted = mintIdParts('EVT');
    return { id: minted.id, xid: xaddIdOf(minted) };
  }
  if (minter instanceof IdMinter) {
    const minted = minter.mintParts('EVT');
    return { id: minted.id, xid: xaddIdOf(minted) };
  }
  // A custom minter is checked like any caller-supplied id: a stream admits EVT ids only.
  const id = parseEvtId(minter.mint('EVT'));
  return { id, xid: xaddId(id) };
}

/** Checks a record's fields and size; on a stream that carries trace context, its reserved names too. */
export function checked(fields: StreamFields, carried: boolean, limit: number, argument = 'fields'): string[] {
  const flat = flattenFields(fields, argument);
  if (carried) refuseTraceFields(fields, argument);
  checkEntrySize(flat, limit, argument === 'fields' ? 'stream entry' : `stream entry ${argument}`);
  return flat;
}

function one(id: EvtId): readonly string[] {
  return [id];
}

function same(ids: readonly EvtId[]): readonly string[] {
  return ids;
}

/**
 * Appends a record with an id the caller supplies (bus.md §2.2). The id and the fields are checked
 * before any I/O, so a refused call writes nothing, not even an empty stream.
 *
 * @returns the id, as the receipt.
 * @throws MalformedIdError when `id` is not a branded id; KindError when it is not EVT.
 * @throws InvalidArgumentError when `fields` is not flat strings or uses the reserved `id` field (or,
 *   with `traceContext`, `_tp`/`_ts`); UnknownOptionError for an unknown option.
 * @throws ValueTooLargeError when the entry is over `maxEntryBytes`; nothing is written.
 * @throws NonMonotonicError when the stream already holds an id at or above this one; never retried with `*`.
 */
export async function appendId(conn: Connection, queue: string, name: string, id: string, fields: StreamFields = {}, options: AppendIdOptions = {}): Promise<EvtId> {
  checkAppendIdOptions(options);
  const evt = parseEvtId(id);
  const carried = options.traceContext === true;
  const flat = checked(fields, carried, resolveValueLimit('maxEntryBytes', options.maxEntryBytes));
  const key = streamKey(queue, name);
  const send = async (extra: readonly string[]): Promise<EvtId> => {
    const write = writes.bus.appendRecord({ key, id: evt, xid: xaddId(evt), fields: flat, extra });
    const started = appendClock();
    await writes.sendWrite(conn, write);
    appended(queue, name, [evt], started);
    return evt;
  };
  return appendTraced() ? tracedAppend(queue, name, 1, carried, one, send) : send([]);
}

/**
 * Appends a record under a freshly minted EVT id (bus.md §2.2). Append never trims; retention is
 * {@link trim}'s job.
 *
 * @returns the minted id, as the receipt.
 * @throws InvalidArgumentError when `fields` is not flat strings or uses the reserved `id` field (or,
 *   with `traceContext`, `_tp`/`_ts`); UnknownOptionError for an unknown option.
 * @throws ValueTooLargeError when the entry is over `maxEntryBytes`; nothing is written.
 * @throws NonMonotonicError when another writer put a higher id on the stream first.
 */
export async function append(conn: Connection, queue: string, name: string, fields: StreamFields = {}, options: AppendOptions = {}): Promise<EvtId> {
  checkAppendOptions(options);
  const key = streamKey(queue, name);
  const carried = options.traceContext === true;
  const flat = checked(fields, carried, resolveValueLimit('maxEntryBytes', options.maxEntryBytes));
  // Minted last, after every check, so a refused call spends no id.
  const minted = mint(options.minter);
  const send = async (extra: readonly string[]): Promise<EvtId> => {
    const write = writes.bus.appendRecord({ key, id: minted.id, xid: minted.xid, fields: flat, extra });
    const started = appendClock();
    await writes.sendWrite(conn, write);
    appended(queue, name, [minted.id], started);
    return minted.id;
  };
  return appendTraced() ? tracedAppend(queue, name, 1, carried, one, send) : send([]);
}

/**
 * Appends many records in one pipeline, minting one id per record in order (bus.md §2.2). Every
 * record is checked before anything is sent.
 *
 * @returns the receipts, in append order.
 * @throws InvalidArgumentError when any record is not flat strings or uses the reserved `id` field (or,
 *   with `traceContext`, `_tp`/`_ts`); UnknownOptionError for an unknown option.
 * @throws ValueTooLargeError when any record is over `maxEntryBytes`; none of them is written.
 * @throws BatchAppendError when any XADD was refused; it says which members landed.
 */
export async function appendBatch(
  conn: Connection,
  queue: string,
  name: string,
  records: readonly StreamFields[],
  options: AppendOptions = {},
): Promise<EvtId[]> {
  checkAppendOptions(options);
  const key = streamKey(queue, name);
  const carried = options.traceContext === true;
  const limit = resolveValueLimit('maxEntryBytes', options.maxEntryBytes);
  const flats = records.map((fields, i) => checked(fields, carried, limit, `records[${i}]`));
  if (flats.length === 0) return [];
  const ids: EvtId[] = new Array<EvtId>(flats.length);
  const minted: Minted[] = new Array<Minted>(flats.length);
  for (let i = 0; i < flats.length; i++) {
    minted[i] = mint(options.minter);
    ids[i] = (minted[i] as Minted).id;
  }
  // One producer context for the whole call: every record of the batch carries the same one.
  const send = (extra: readonly string[]): Promise<EvtId[]> => sendBatch(conn, queue, name, ids, writes.bus.appendRecords({ key, ids: minted, fields: flats, extra }));
  return appendTraced() ? tracedAppend(queue, name, ids.length, carried, same, send) : send([]);
}

async function sendBatch(conn: Connection, queue: string, name: string, ids: EvtId[], batch: writes.WriteBatch<writes.bus.AppendRefusals>): Promise<EvtId[]> {
  const started = appendClock();
  const refusals = await writes.sendWriteBatch(conn, batch);
  // The results are built only when something was refused: the common case answers the ids as they are.
  if (refusals !== undefined) {
    throw new BatchAppendError(refusals.map((error, i): BatchAppendResult => (error === undefined ? { ok: true, id: ids[i] as EvtId } : { ok: false, id: ids[i] as EvtId, error })));
  }
  appended(queue, name, ids, started);
  return ids;
}
