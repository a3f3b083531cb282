import { IdMinter, InvalidArgumentError, executeAll, mintIdParts, transitions, writes, type EvtId } from '@echo/protocol/bus';
import type { EvtMinter, StreamContext } from '../core/context.js';
import { BatchAppendError, type BatchAppendResult } from '../core/errors.js';
import { checkEntryItems } from '../record/entry-size.js';
import { flattenInto, type StreamFields } from '../record/fields.js';
import { refuseTraceFields, TRACEPARENT_FIELD, TRACESTATE_FIELD } from '../record/trace-fields.js';
import { parseEvtId, xaddId, xaddIdOf } from '../record/xadd-id.js';
import { appendClock, appended } from '../telemetry/hooks.js';
import { appendTraced, tracedAppend } from '../telemetry/trace.js';

/*
 * appendBatch (bus.md §2.2) as one `stream_append_batch` script per chunk [TS]: the same entries at
 * the same ids as the spec's pipelined XADDs, at a fraction of the client's cost (one command per
 * chunk instead of one per record). Every record is laid out straight into its chunk's one
 * argument list (XADD id, EVT id, item count, fields): no array, object or closure per record.
 */

/** A chunk closes at this many records, so one script never holds the server for long. */
const CHUNK_RECORDS = 1000;
/** …or at this many UTF-16 units of fields, so one command stays a modest read for the server. */
const CHUNK_UNITS = 1 << 20;
/**
 * Lua passes a record's items to XADD on its C stack, which holds about 8,000 values: a record with
 * more items than this (fields and trace fields together) is beyond the script, and its batch takes
 * the spec's pipelined form instead, whole, so the order of the records is kept.
 */
const SCRIPT_ITEMS = 7000;

/** One argument of the script: a text, or a record's item count. */
type Item = string | number;

/** One script's worth of records, laid out as `stream_append_batch` reads them. */
interface Chunk {
  readonly items: Item[];
  count: number;
  units: number;
}

/** A batch checked and laid out, its ids not minted yet. */
interface Layout {
  readonly chunks: Chunk[];
  readonly count: number;
  /** The most items one record has: past {@link SCRIPT_ITEMS} the batch is pipelined. */
  widest: number;
}

/**
 * Checks every record and lays it out, before anything is minted or sent: a refused call spends no
 * id and writes nothing. Each record's XADD id and EVT id slots are left empty for {@link mintInto}.
 */
function layOut(ctx: StreamContext, records: readonly StreamFields[]): Layout {
  const layout: Layout = { chunks: [], count: records.length, widest: 0 };
  let chunk: Chunk = { items: [], count: 0, units: 0 };
  layout.chunks.push(chunk);
  for (let r = 0; r < records.length; r++) {
    const fields = records[r] as StreamFields;
    if (chunk.count === CHUNK_RECORDS || chunk.units >= CHUNK_UNITS) {
      chunk = { items: [], count: 0, units: 0 };
      layout.chunks.push(chunk);
    }
    const items = chunk.items;
    const at = items.length;
    items.push('', '', 0);
    // The record is named by its index: `records[${r}]` is built only for an error.
    const units = flattenInto(items, fields, r);
    if (ctx.traceContext && (Object.hasOwn(fields, TRACEPARENT_FIELD) || Object.hasOwn(fields, TRACESTATE_FIELD))) refuseTraceFields(fields, `records[${r}]`);
    checkEntryItems(items, at + 3, items.length, units, ctx.maxEntryBytes, r);
    const n = items.length - at - 3;
    items[at + 2] = n;
    if (n > layout.widest) layout.widest = n;
    chunk.units += units;
    chunk.count++;
  }
  return layout;
}

/** Mints one record's id into its slots (`at`: its XADD id slot) and answers it. */
function mintInto(items: Item[], at: number, minter: EvtMinter | undefined): EvtId {
  // Our own minters answer the snowflake's fields beside the id: the XADD id needs no decode.
  if (minter === undefined || minter instanceof IdMinter) {
    const minted = minter === undefined ? mintIdParts('EVT') : minter.mintParts('EVT');
    items[at] = xaddIdOf(minted);
    items[at + 1] = minted.id;
    return minted.id;
  }
  // A custom minter is checked like any caller-supplied id: a stream admits EVT ids only.
  const id = parseEvtId(minter.mint('EVT'));
  items[at] = xaddId(id);
  items[at + 1] = id;
  return id;
}

/** Mints every record's id in append order, into the layout; answers the ids. */
function mintAll(layout: Layout, minter: EvtMinter | undefined): EvtId[] {
  const ids = new Array<EvtId>(layout.count);
  let r = 0;
  for (const { items } of layout.chunks) {
    for (let at = 0; at < items.length; at += 3 + (items[at + 2] as number)) ids[r++] = mintInto(items, at, minter);
  }
  return ids;
}

/**
 * Appends many records, minting one id per record in order (bus.md §2.2), in one script per chunk
 * of up to 1,000 records, every chunk in one pipeline. Every record is checked before anything is
 * sent.
 *
 * @throws InvalidArgumentError when `records` is not a list, or a record is not flat strings or uses
 *   a reserved field; nothing is written.
 * @throws ValueTooLargeError when any record is over `maxEntryBytes`; none of them is written.
 * @throws BatchAppendError when the server refused any record; it says which landed.
 */
export async function appendBatch(ctx: StreamContext, records: readonly StreamFields[]): Promise<EvtId[]> {
  if (!Array.isArray(records)) throw new InvalidArgumentError('records', 'must be a list of records');
  if (records.length === 0) return [];
  const layout = layOut(ctx, records);
  // Minted last, after every check, so a refused call spends no id.
  const ids = mintAll(layout, ctx.minter);
  // One producer context for the whole call: every record of the batch carries the same one.
  const send = (extra: readonly string[]): Promise<EvtId[]> => sendBatch(ctx, layout, ids, extra);
  return appendTraced() ? tracedAppend(ctx.queue, ctx.name, ids.length, ctx.traceContext, same, send) : send([]);
}

function same(ids: readonly EvtId[]): readonly string[] {
  return ids;
}

async function sendBatch(ctx: StreamContext, layout: Layout, ids: EvtId[], extra: readonly string[]): Promise<EvtId[]> {
  const started = appendClock();
  const refused = layout.widest + extra.length > SCRIPT_ITEMS ? await sendPipelined(ctx, layout, ids, extra) : await sendScripts(ctx, layout, extra);
  // The results are built only when something was refused: the common case answers the ids as they are.
  if (refused !== undefined) {
    throw new BatchAppendError(ids.map((id, i): BatchAppendResult => {
      const error = refused[i];
      return error === undefined ? { ok: true, id } : { ok: false, id, error };
    }));
  }
  appended(ctx.queue, ctx.name, ids, started);
  return ids;
}

/** Per record, the error it met; `undefined` when every record landed. */
type Refused = (Error | undefined)[] | undefined;

/** One `stream_append_batch` per chunk, in one pipeline; a chunk the server did not run refuses all its records. */
async function sendScripts(ctx: StreamContext, layout: Layout, extra: readonly string[]): Promise<Refused> {
  const calls = layout.chunks.map((chunk) => transitions.streamAppendBatch({ queue: ctx.queue, stream: ctx.name, records: chunk.items, count: chunk.count, extra }));
  const settled = await executeAll(ctx.conn, calls);
  let refused: Refused;
  let first = 0;
  for (let c = 0; c < settled.length; c++) {
    const outcome = settled[c] as (typeof settled)[number];
    const count = (layout.chunks[c] as Chunk).count;
    if (!outcome.ok) {
      refused ??= new Array<Error | undefined>(layout.count).fill(undefined);
      refused.fill(outcome.error, first, first + count);
    } else if (outcome.value.length > 0) {
      refused ??= new Array<Error | undefined>(layout.count).fill(undefined);
      for (const r of outcome.value) refused[first + r.index] = r.error;
    }
    first += count;
  }
  return refused;
}

/** The spec's own form, one XADD per record in one pipeline: for a batch with a record too wide for a script. */
async function sendPipelined(ctx: StreamContext, layout: Layout, ids: readonly EvtId[], extra: readonly string[]): Promise<Refused> {
  const minted: { id: EvtId; xid: string }[] = [];
  const fields: string[][] = [];
  for (const { items } of layout.chunks) {
    for (let at = 0; at < items.length; at += 3 + (items[at + 2] as number)) {
      minted.push({ id: items[at + 1] as EvtId, xid: items[at] as string });
      fields.push(items.slice(at + 3, at + 3 + (items[at + 2] as number)) as string[]);
    }
  }
  if (minted.length !== ids.length) throw new InvalidArgumentError('records', 'laid out a different number of records than minted');
  const refusals = await writes.sendWriteBatch(ctx.conn, writes.bus.appendRecords({ key: ctx.key, ids: minted, fields, extra }));
  return refusals === undefined ? undefined : [...refusals];
}
