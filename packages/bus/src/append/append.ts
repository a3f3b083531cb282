import { IdMinter, mintIdParts, writes, type EvtId } from '@echo/protocol/bus';
import type { EvtMinter, StreamContext } from '../core/context.js';
import { checkEntrySize } from '../record/entry-size.js';
import { flattenFields, type StreamFields } from '../record/fields.js';
import { refuseTraceFields } from '../record/trace-fields.js';
import { parseEvtId, xaddId, xaddIdOf } from '../record/xadd-id.js';
import { appendClock, appended } from '../telemetry/hooks.js';
import { appendTraced, tracedAppend } from '../telemetry/trace.js';

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
export function checked(ctx: StreamContext, fields: StreamFields, argument = 'fields'): string[] {
  const flat = flattenFields(fields, argument);
  if (ctx.traceContext) refuseTraceFields(fields, argument);
  checkEntrySize(flat, ctx.maxEntryBytes, argument === 'fields' ? 'stream entry' : `stream entry ${argument}`);
  return flat;
}

function one(id: EvtId): readonly string[] {
  return [id];
}

/** Writes one checked record under a known id, traced when someone listens. */
function sendOne(ctx: StreamContext, minted: Minted, flat: readonly string[]): Promise<EvtId> {
  const send = async (extra: readonly string[]): Promise<EvtId> => {
    const write = writes.bus.appendRecord({ key: ctx.key, id: minted.id, xid: minted.xid, fields: flat, extra });
    const started = appendClock();
    await writes.sendWrite(ctx.conn, write);
    appended(ctx.queue, ctx.name, [minted.id], started);
    return minted.id;
  };
  return appendTraced() ? tracedAppend(ctx.queue, ctx.name, 1, ctx.traceContext, one, send) : send([]);
}

/**
 * Appends a record with an id the caller supplies (bus.md §2.2). The id and the fields are checked
 * before any I/O, so a refused call writes nothing, not even an empty stream.
 *
 * @throws MalformedIdError when `id` is not a branded id; KindError when it is not EVT.
 * @throws InvalidArgumentError when `fields` is not flat strings or uses a reserved field.
 * @throws ValueTooLargeError when the entry is over `maxEntryBytes`; nothing is written.
 * @throws NonMonotonicError when the stream already holds an id at or above this one; never retried with `*`.
 */
export async function appendId(ctx: StreamContext, id: string, fields: StreamFields): Promise<EvtId> {
  const evt = parseEvtId(id);
  const flat = checked(ctx, fields);
  return sendOne(ctx, { id: evt, xid: xaddId(evt) }, flat);
}

/**
 * Appends a record under a freshly minted EVT id (bus.md §2.2). Append never trims; retention is
 * the trim's job.
 *
 * @throws InvalidArgumentError when `fields` is not flat strings or uses a reserved field.
 * @throws ValueTooLargeError when the entry is over `maxEntryBytes`; nothing is written.
 * @throws NonMonotonicError when another writer put a higher id on the stream first.
 */
export async function append(ctx: StreamContext, fields: StreamFields): Promise<EvtId> {
  const flat = checked(ctx, fields);
  // Minted last, after every check, so a refused call spends no id.
  return sendOne(ctx, mint(ctx.minter), flat);
}
